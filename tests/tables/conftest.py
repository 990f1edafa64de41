"""Fixtures of the tables' tests: a real server on a loopback port."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest


@pytest.fixture
def start_server(tmp_path):
    """``start_server(*args, data=None)`` runs ``python -m tables.web`` on a free port
    (a fresh data folder unless given) and returns ``(base_url, data_folder)``;
    every server is stopped at the end of the test, and a traceback in its log
    (a request or a bot loop that failed, even if no reply showed it) fails the test."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from tables.loadtest import local_server

    count = iter(range(1000))
    logs: list[Path] = []
    with contextlib.ExitStack() as stack:

        def start(*args: str, data: str | None = None) -> tuple[str, str]:
            n = next(count)
            folder = data or str(tmp_path / f"data{n}")
            logs.append(tmp_path / f"server{n}.log")
            return stack.enter_context(local_server(*args, data=folder, log=str(logs[-1]))), folder

        yield start
    for log in logs:
        text = log.read_text(errors="replace") if log.exists() else ""
        assert "Traceback" not in text, f"the server logged an error ({log}):\n{text[-3000:]}"
