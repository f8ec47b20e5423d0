"""The output markup of the commands (`<info>Plan</info>`), rendered without cleo.

The commands write cleo's markup: a few named styles as tags, and `\\<` for a literal `<`
(`escape`). Inside Poetry, cleo renders it; for the console script (and `poetry cuda run`,
which runs before Poetry's output is set up) it is rendered here (`cli.streams`), so that a
command needs no cleo to print. The
styles and their ANSI codes are cleo's defaults, and `render` follows cleo's formatter
for the tags the commands use; a test holds the two equal on generated lines. An unknown
tag, like cleo's, is kept as text; cleo's inline styles (`<fg=red>`) are not rendered
here, and the commands do not use them.
"""

from __future__ import annotations

import re


# name -> (the codes that set it, the codes that unset it), as cleo's Color makes them.
STYLES: dict[str, tuple[str, str]] = {
    "error": ("31;1", "39;22"),
    "info": ("34", "39"),
    "comment": ("32", "39"),
    "question": ("36", "39"),
    "c1": ("36", "39"),
    "c2": ("39;1", "39;22"),
    "b": ("39;1", "39;22"),
}
TAG = re.compile(r"(?ix)<(([a-z](?:[^<>]*)) | /([a-z](?:[^<>]*))?)>")
UNESCAPED_LT = re.compile(r"([^\\]?)<")


def escape(text: str) -> str:
    """`text` with every `<` escaped, so that it prints as written (cleo's `escape`)."""
    text = UNESCAPED_LT.sub("\\1\\<", text)
    if text.endswith("\\"):
        length = len(text)
        text = text.rstrip("\\").replace("\0", "").ljust(length, "\0")
    return text


def render(message: str, decorated: bool) -> str:
    """`message` with its tags applied as ANSI codes (`decorated`) or removed."""
    stack: list[str] = []
    output: list[str] = []
    offset = 0

    def emit(text: str) -> None:
        if text and decorated and stack:
            on, off = STYLES[stack[-1]]
            text = f"\033[{on}m{text}\033[{off}m"
        output.append(text)

    for match in TAG.finditer(message):
        start = match.start()
        if start and message[start - 1] == "\\":
            continue
        emit(message[offset:start])
        offset = match.end()
        opening = match.group(0)[1] != "/"
        name = match.group(1) if opening else match.group(2)
        if not (opening or name):  # `</>` closes the innermost
            if stack:
                stack.pop()
        elif name not in STYLES:
            emit(match.group(0))
        elif opening:
            stack.append(name)
        elif stack:  # like cleo, close the innermost tag of the same look
            same = [i for i, open_name in enumerate(stack) if STYLES[open_name] == STYLES[name]]
            if not same:
                raise ValueError(f"incorrectly nested style tag </{name}> in {message!r}")
            del stack[same[-1] :]
    emit(message[offset:])
    return "".join(output).replace("\0", "\\").replace("\\<", "<")
