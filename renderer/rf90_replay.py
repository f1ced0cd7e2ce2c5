"""The replay of a Race! Formula 90 race as an animated WebP, `render_replay(states)`: one
frame per state of `rules.rf90.replay.activation_states` (the grid, each section activation,
the end), each the track image scaled down under a caption band (the game turn, the section
activated, the leader; the final classification on the last frame, which is held longest).

Discord takes uploads up to 10 MiB and animates WebP attachments; the default width keeps the
longest race seen (6 drivers, ~250 activations) far under that, and the caption stays legible
when Discord shows the animation ~400 px wide (no caption text under 12 px at that width)."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from PIL import Image, ImageDraw

from renderer.common import (
    HEADER_BG,
    HEADER_FG,
    MarkerShape,
    car_marker,
    draw_text,
    text_width,
)
from renderer.rf90_base import BAND_H, HEIGHT, W, car_colour_name, car_label
from renderer.rf90_track import track_image
from rules.rf90 import GAME, catalog
from rules.rf90.state import Car, RF90State

DEFAULT_WIDTH = W // 2  # 930 px: an exact 2:1 reduction (cheap, sharp) and ~2-3 MiB a race
UPLOAD_LIMIT = 10 * 1024 * 1024  # Discord's attachment limit
DISPLAY_WIDTH = 400  # about how wide a phone shows the animation
MIN_DISPLAY_TEXT = 12  # no caption text under this many px at DISPLAY_WIDTH
FRAME_MS = 400  # one section activation
GRID_MS = 1500  # the grid before the start
FINAL_MS = 6000  # the final classification: held so it can be read before the loop restarts
CAPTION_FG_MUTED = (178, 186, 200)


def caption_px(width: int) -> tuple[int, int]:
    """The caption's text sizes (first line, second line) at an animation `width`: 14 and
    13 px when shown DISPLAY_WIDTH wide, so never under MIN_DISPLAY_TEXT there."""
    scale = width / DISPLAY_WIDTH
    return math.ceil(14 * scale), math.ceil(13 * scale)


def frame_size(width: int) -> tuple[int, int]:
    """Pixel size of every frame: the track image scaled to `width` plus the caption band."""
    return width, caption_height(width) + _track_height(width)


def caption_height(width: int) -> int:
    """Height of the caption band at the top of every frame."""
    head, sub = caption_px(width)
    return round((head + sub) * 1.45 + 0.6 * head)


def _leader(state: RF90State) -> Car | None:
    order = GAME.race_classification(state)
    return order[0] if order and order[0].running else None


def caption(state: RF90State, index: int, count: int) -> tuple[str, str, Car | None]:
    """The caption of frame `index` of `count`: its first line, its second line, and the car
    whose marker leads the second line (the leader, the pole sitter or the winner)."""
    track = catalog.track(state.track, state.race_turns)
    place = state.track.capitalize()  # the full circuit name is on the image already
    counter = f"{index + 1}/{count}"
    if state.phase == "finished" and state.activation is None:
        order = GAME.race_classification(state)
        rest = " · ".join(f"{i}. {c.name}" for i, c in enumerate(order[1:3], start=2))
        winner = order[0] if order else None
        second = f"Winner: {winner.name}" if winner is not None else "No car finished"
        return (
            f"{place} · final classification · {counter}",
            f"{second} · {rest}" if rest else second,
            winner,
        )
    if state.phase in ("setup", "qualifying", "start") and state.activation is None:
        pole = state.cars[state.grid_order[0]] if state.grid_order else None
        return (
            f"{place} · the grid · {counter}",
            f"Pole: {pole.name}" if pole is not None else "The grid is not set",
            pole,
        )
    where = f" · section {state.activation}" if state.activation is not None else ""
    lead = _leader(state)
    return (
        f"Game turn {state.turn} of {track.race_turns}{where} · {counter}",
        f"Leader: {lead.name}" if lead is not None else "No car running",
        lead,
    )


def _draw_band(img: Image.Image, state: RF90State, index: int, count: int) -> None:
    width = img.width
    band = caption_height(width)
    head_px, sub_px = caption_px(width)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, width, band - 1), fill=HEADER_BG)
    first, second, car = caption(state, index, count)
    pad = round(0.5 * head_px)
    row1 = pad + head_px * 0.7
    row2 = band - pad - sub_px * 0.7
    # the counter (the last " · " part) in a quieter colour, right-aligned, always shown
    title, _, counter = first.rpartition(" · ")
    cw = text_width(counter, head_px)
    draw_text(draw, (width - pad, row1), counter, head_px, CAPTION_FG_MUTED, anchor="rm")
    draw_text(draw, (pad, row1), title, head_px, HEADER_FG, bold=True, anchor="lm",
              max_width=width - 3 * pad - cw)  # fmt: skip
    x = pad
    if car is not None:
        size = round(sub_px * 1.3)
        shape: MarkerShape = "rounded" if car.is_robot else "circle"
        car_marker(draw, (x + size // 2, round(row2)), car_colour_name(car),
                   car_label(state, car), size, shape=shape)  # fmt: skip
        x += size + pad // 2
    draw_text(draw, (x, row2), second, sub_px, HEADER_FG, anchor="lm", max_width=width - x - pad)


def _track_height(width: int) -> int:
    return math.ceil((HEIGHT - BAND_H) * width / W)  # as Image.reduce rounds


def _scaled(img: Image.Image, width: int) -> Image.Image:
    height = _track_height(width)
    if W % width == 0:  # box average by an integer factor: several times faster than resize
        return img.reduce(W // width)
    return img.resize((width, height), Image.Resampling.BILINEAR, reducing_gap=2.0)


def replay_frame(
    state: RF90State, index: int, count: int, width: int = DEFAULT_WIDTH
) -> Image.Image:
    """One frame of the animation as an RGB image of `frame_size(width)`."""
    frame = Image.new("RGB", frame_size(width), HEADER_BG)
    # without the track's own header band: the caption above says the same
    frame.paste(_scaled(track_image(state, header=False), width), (0, caption_height(width)))
    _draw_band(frame, state, index, count)
    return frame


class _Frames(Image.Image):
    """The animation as one multi-frame image that draws a frame when the encoder seeks it
    (the `n_frames` / `seek` / `tell` protocol Pillow's `save_all` reads). A list of frames for
    `append_images` would hold them all at once: ~3.3 MB each at 930 px, ~0.8 GB a race."""

    def __init__(self, states: Sequence[RF90State], width: int, pool: ThreadPoolExecutor) -> None:
        super().__init__()
        # mode, size and pixels of the first frame, whatever this Pillow calls them: every
        # frame is RGB of frame_size(width), so later frames only swap the pixels (`im`)
        self.__dict__.update(replay_frame(states[0], 0, len(states), width).__dict__)
        self._states = states
        self._width = width
        self._pool = pool
        self.n_frames = len(states)
        self._index = 0
        self._next: tuple[int, Future[Image.Image]] | None = (
            (1, self._draw(1)) if len(states) > 1 else None
        )

    def _draw(self, frame: int) -> Future[Image.Image]:
        return self._pool.submit(replay_frame, self._states[frame], frame, self.n_frames,
                                 self._width)  # fmt: skip

    def seek(self, frame: int) -> None:
        if frame == self._index:
            return
        ahead = self._next
        job = ahead[1] if ahead is not None and ahead[0] == frame else self._draw(frame)
        # the next frame is drawn while libwebp encodes this one (it releases the GIL)
        forward = self._index < frame < self.n_frames - 1  # not Pillow's rewind at the end
        self._next = (frame + 1, self._draw(frame + 1)) if forward else None
        self.im = job.result().im
        self._index = frame

    def tell(self) -> int:
        return self._index


def render_replay(
    states: Sequence[RF90State], *, width: int = DEFAULT_WIDTH, quality: int = 80
) -> bytes:
    """The states as an animated WebP that loops, one frame each: the grid and the final
    classification held longer than a section activation. Lossy (`quality`): the frames are
    scaled renderings, and a lossless race is several times larger."""
    if not states:
        raise ValueError("no state to replay")
    if not 100 <= width <= W:
        raise ValueError(f"width must be 100 to {W} px")
    count = len(states)
    out = io.BytesIO()
    with ThreadPoolExecutor(max_workers=1) as pool:
        frames = _Frames(states, width, pool)
        frames.save(
            out,
            format="WEBP",
            save_all=True,
            duration=[_duration(s, i, count) for i, s in enumerate(states)],
            loop=0,
            quality=quality,
            # method 2 and no key frame after the first (kmax=0): libwebp then encodes only what
            # changed since the previous frame and tries no full-frame alternative, which halves
            # both the size and the time of its defaults here
            method=2,
            kmin=0,
            kmax=0,
        )
    return out.getvalue()


def _duration(state: RF90State, index: int, count: int) -> int:
    if index == count - 1 and count > 1:
        return FINAL_MS
    if state.activation is None and index == 0:
        return GRID_MS
    return FRAME_MS
