"""The external-bot protocol (see PROTOCOL.md and schemas/ beside this file; code in messages.py)."""
