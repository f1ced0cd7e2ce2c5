"""Paddock renderer: pure functions from game and league state to PNG bytes (Pillow only).

Nothing here imports discord; images are built to read well on a phone (large markers,
colour plus number, a legend). Shared drawing tools live in `renderer.common`.
"""
