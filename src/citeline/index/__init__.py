"""Embedding and storage: the Store interface, its engines, and ranking."""
