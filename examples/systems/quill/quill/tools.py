"""The tools the model may call, their schemas, and the guards around them."""
from __future__ import annotations

import subprocess
from pathlib import Path

from . import notes


class ToolError(Exception):
    """A refused or failed call; its message goes back to the model as the tool result."""


SCHEMAS = [
    {"name": "read_file", "description": "Read a text file of the project.",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "write_file", "description": "Write a text file of the project, replacing it.",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}}, "required": ["path", "text"]}},
    {"name": "list_dir", "description": "List a directory of the project.",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "run_shell", "description": "Run a shell command in the project directory.",
     "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
    {"name": "remember", "description": "Keep one sentence about this project for later tasks.",
     "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "finish", "description": "End the task with a summary.",
     "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}},
]


def inside(workspace: Path, relative: str) -> Path:
    """Resolves a model-given path and refuses one that leaves the workspace."""
    target = (workspace / relative).resolve()
    if target != workspace and workspace not in target.parents:
        raise ToolError(f"{relative} is outside the workspace")
    return target


def approve(command: str, policy: str) -> None:
    if policy == "allow":
        return
    if policy == "deny":
        raise ToolError("shell commands are disabled (tools.shell = deny)")
    answer = input(f"quill wants to run: {command}\nallow? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        raise ToolError("the user refused this command")


def dispatch(name: str, arguments: dict, workspace: Path, config: dict, task: str) -> str:
    """Executes one tool call and returns its result text. `finish` is handled by the loop."""
    tools = config["tools"]
    if name == "read_file":
        return inside(workspace, arguments["path"]).read_text(encoding="utf-8")
    if name == "write_file":
        target = inside(workspace, arguments["path"])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(arguments["text"], encoding="utf-8")
        return f"wrote {arguments['path']} ({len(arguments['text'])} characters)"
    if name == "list_dir":
        target = inside(workspace, arguments["path"])
        return "\n".join(sorted(p.name + ("/" if p.is_dir() else "") for p in target.iterdir()))
    if name == "run_shell":
        approve(arguments["command"], tools.get("shell", "ask"))
        done = subprocess.run(arguments["command"], shell=True, cwd=workspace, capture_output=True,
                              text=True, timeout=int(tools.get("shell_timeout", 120)))
        return f"exit {done.returncode}\n{done.stdout[-4000:]}{done.stderr[-2000:]}"
    if name == "remember":
        return "kept: " + notes.append(workspace, config, arguments["text"], task).strip()
    raise ToolError(f"no tool named {name}")
