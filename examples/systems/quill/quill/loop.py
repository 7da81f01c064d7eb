"""Quill's command line and tool loop: one task, driven to a `finish` call or the turn limit."""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import subprocess
import tomllib
import urllib.request
from pathlib import Path

from . import notes, tools

PROMPT = Path(__file__).parent / "prompts" / "system.md"
LOG = ".quill/log.jsonl"


def load_config(directory: Path) -> dict:
    with (directory / "quill.toml").open("rb") as handle:
        return tomllib.load(handle)


def system_prompt(workspace: Path, config: dict) -> str:
    """The standing instructions, then the newest notes from earlier tasks."""
    text = PROMPT.read_text(encoding="utf-8")
    carried = notes.render(notes.load_recent(workspace, config))
    return text if not carried else f"{text}\n{carried}"


def complete(config: dict, messages: list[dict]) -> dict:
    """One model turn: the conversation so far and the tool schemas in, the model's reply out."""
    model = config["model"]
    body = {
        "model": model["name"],
        "messages": messages,
        "tools": [{"type": "function", "function": schema} for schema in tools.SCHEMAS],
        "max_tokens": model.get("max_tokens", 2048),
        "temperature": model.get("temperature", 0.2),
    }
    request = urllib.request.Request(model["endpoint"], data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.load(response)["choices"][0]["message"]


def run_task(task: str, directory: Path) -> str:
    config = load_config(directory)
    workspace = (directory / config["tools"].get("workspace", ".")).resolve()
    messages = [{"role": "system", "content": system_prompt(workspace, config)}, {"role": "user", "content": task}]
    outcome = {"status": "turn-limit", "summary": None}
    for _turn in range(int(config["loop"].get("max_turns", 24))):
        reply = complete(config, messages)
        messages.append(reply)
        calls = reply.get("tool_calls") or []
        if not calls:
            messages.append({"role": "user", "content": "Call a tool, or call finish if the task is done."})
            continue
        for call in calls:
            name = call["function"]["name"]
            arguments = json.loads(call["function"]["arguments"] or "{}")
            if name == "finish":
                outcome = {"status": "finished", "summary": arguments.get("summary", "")}
                break
            try:
                result = tools.dispatch(name, arguments, workspace, config, task)
            except (tools.ToolError, OSError, subprocess.TimeoutExpired) as error:
                result = f"error: {error}"
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        if outcome["status"] == "finished":
            break
    write_log(workspace, task, outcome, messages)
    return outcome["summary"] or "stopped: the turn limit was reached before the task finished"


def write_log(workspace: Path, task: str, outcome: dict, messages: list[dict]) -> None:
    """Appends the task's whole transcript to the log. Quill never reads the log back."""
    path = workspace / LOG
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"at": _dt.datetime.now().isoformat(timespec="seconds"), "task": task, **outcome, "messages": messages}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(prog="quill")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one task in the current directory")
    run.add_argument("task")
    arguments = parser.parse_args()
    print(run_task(arguments.task, Path.cwd()))


if __name__ == "__main__":
    main()
