"""Quill: a small terminal agent over a tool loop."""
