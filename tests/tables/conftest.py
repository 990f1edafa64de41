"""Fixtures of the tables' tests: a real server on a loopback port."""

from __future__ import annotations

import contextlib

import pytest


@pytest.fixture
def start_server(tmp_path):
    """``start_server(*args, data=None)`` runs ``python -m tables.web`` on a free port
    (a fresh data folder unless given) and returns ``(base_url, data_folder)``;
    every server is stopped at the end of the test."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from tables.loadtest import local_server

    count = iter(range(1000))
    with contextlib.ExitStack() as stack:

        def start(*args: str, data: str | None = None) -> tuple[str, str]:
            folder = data or str(tmp_path / f"data{next(count)}")
            return stack.enter_context(local_server(*args, data=folder)), folder

        yield start
