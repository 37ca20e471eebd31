"""--split-input-file: the input as chunks, each kept at its original line and column
(so diagnostics point into the original file)."""
from __future__ import annotations

DEFAULT_SPLIT_MARKER = "// -----"


class Chunk:
    def __init__(self, text: str, line: int, col: int, index: int):
        self.text = text  # the chunk only
        self.line = line  # 1-based position of the chunk start in the original buffer
        self.col = col
        self.index = index

    def padded(self) -> str:
        """The chunk placed at its original line and column."""
        return "\n" * (self.line - 1) + " " * (self.col - 1) + self.text


def split_chunks(text: str, marker: str | None) -> list[Chunk]:
    if not marker:
        return [Chunk(text, 1, 1, 0)]
    chunks, start, idx = [], 0, 0
    while True:
        j = text.find(marker, start)
        if j < 0:
            break
        chunks.append((start, j))
        start = j + len(marker)
    chunks.append((start, len(text)))
    out = []
    for k, (a, b) in enumerate(chunks):
        line = text.count("\n", 0, a) + 1
        col = a - (text.rfind("\n", 0, a) + 1) + 1
        out.append(Chunk(text[a:b], line, col, k))
    return out
