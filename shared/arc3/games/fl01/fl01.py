"""Fill (fl01): click the lower tiles until their colours match the row of tiles above. ACTION6 = click.

A project game for the ARC-AGI-3 harness (shared.arc3): self-contained, since the toolkit runs
this file on its own. Each click moves a tile to the next colour of a cycle (blank, blue, orange,
green, blank, ...); the top row is the target and does not change. Three levels: two, three and
four tiles.
"""

from arcengine import ARCBaseGame, Camera, GameAction, Level, Sprite

BACKGROUND, FRAME = 5, 4
CYCLE = [0, 9, 12, 14]  # a tile's colours, in click order
SIZE = 16
TARGETS = [[9, 12], [14, 9, 0], [12, 14, 9, 12]]  # the colour each tile must reach, per level


def _tile(colour: int, name: str, x: int, y: int, tags: list[str]) -> Sprite:
    return Sprite([[colour] * 3 for _ in range(3)], name=name, x=x, y=y, tags=tags)


def _level(target: list[int], index: int) -> Level:
    gap = SIZE // len(target)
    sprites = [Sprite([[FRAME] * SIZE], name="divider", x=0, y=7, collidable=False)]
    for i, colour in enumerate(target):
        x = i * gap + (gap - 3) // 2
        sprites.append(_tile(colour, f"target{i}", x, 2, ["target"]))
        sprites.append(_tile(CYCLE[0], f"tile{i}", x, 11, ["tile"]))
    return Level(sprites=sprites, grid_size=(SIZE, SIZE), data={"target": target}, name=f"fill {index + 1}")


class Fl01(ARCBaseGame):
    def __init__(self, seed: int = 0) -> None:
        levels = [_level(target, i) for i, target in enumerate(TARGETS)]
        super().__init__("fl01", levels, Camera(width=SIZE, height=SIZE, background=BACKGROUND,
                                                letter_box=BACKGROUND), available_actions=[6], seed=seed)

    def step(self) -> None:
        if self.action.id == GameAction.ACTION6:
            cell = self.camera.display_to_grid(int(self.action.data.get("x", 0)), int(self.action.data.get("y", 0)))
            tile = self.current_level.get_sprite_at(*cell, tag="tile") if cell else None
            if tile is not None:
                colour = int(tile.pixels[0, 0])
                tile.color_remap(None, CYCLE[(CYCLE.index(colour) + 1) % len(CYCLE)])
                if self._matches():
                    self.next_level()
        self.complete_action()

    def _matches(self) -> bool:
        target = self.current_level.get_data("target")
        tiles = [self.current_level.get_sprites_by_name(f"tile{i}")[0] for i in range(len(target))]
        return all(int(t.pixels[0, 0]) == colour for t, colour in zip(tiles, target, strict=True))
