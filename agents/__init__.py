"""Bots for Sixty-Six behind one interface (see ``agents.base``)."""
