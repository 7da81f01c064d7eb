"""The notes store: sentences the model asked to keep, one Markdown list item each.

Notes are appended when the model calls `remember` and never rewritten; the newest `recent` of them
are put into every later task's system prompt. The operator may edit the file by hand.
"""
from __future__ import annotations

import datetime as _dt
from pathlib import Path

HEADER = "# Quill notes\n\nWritten by Quill's `remember` tool. Edit freely; Quill only appends.\n\n"


def notes_file(workspace: Path, config: dict) -> Path:
    return workspace / config["notes"].get("path", ".quill/notes.md")


def append(workspace: Path, config: dict, text: str, task: str) -> str:
    """Appends one note at once and returns the line written."""
    sentence = " ".join(text.split())
    if not sentence:
        raise ValueError("remember needs a sentence")
    path = notes_file(workspace, config)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(HEADER, encoding="utf-8")
    origin = task if len(task) <= 60 else task[:57] + "..."
    line = f"- {_dt.date.today().isoformat()}: {sentence} (task: {origin})\n"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line)
    return line


def load_recent(workspace: Path, config: dict) -> list[str]:
    """The newest notes, oldest first: the last `recent` list items of the file."""
    path = notes_file(workspace, config)
    if not path.exists():
        return []
    items = [line.rstrip("\n") for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("- ")]
    recent = int(config["notes"].get("recent", 20))
    return items[-recent:] if recent > 0 else []


def render(notes: list[str]) -> str:
    """The block the system prompt carries; empty when there is nothing to carry."""
    if not notes:
        return ""
    return "## Notes from earlier tasks in this project\n\n" + "\n".join(notes) + "\n"
