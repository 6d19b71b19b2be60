"""Switches (sw01): click the switches in the order their bars show, shortest bar first. ACTION6 = click.

A project game for the ARC-AGI-3 harness (shared.arc3): self-contained, since the toolkit runs
this file on its own. A switch pressed in turn lights up; one out of turn puts every light out.
Three levels: three, four and five switches, the order shuffled.
"""

from arcengine import ARCBaseGame, Camera, GameAction, Level, Sprite

BACKGROUND, OFF, LIT, BAR = 5, 2, 11, 9
SIZE = 16  # the camera's grid: 4 display pixels per cell
ORDERS = [[1, 0, 2], [2, 0, 3, 1], [3, 1, 4, 0, 2]]  # ORDERS[level][i]: the turn of switch i


def _level(order: list[int], index: int) -> Level:
    gap = SIZE // len(order)
    sprites = []
    for i, turn in enumerate(order):
        x = i * gap + (gap - 2) // 2
        sprites.append(Sprite([[OFF, OFF], [OFF, OFF]], name=f"switch{i}", x=x, y=12, tags=["switch"]))
        # the hint: a bar above the switch, one cell tall per turn
        sprites.append(Sprite([[BAR, BAR]] * (turn + 1), name=f"bar{i}", x=x, y=10 - turn, collidable=False))
    return Level(sprites=sprites, grid_size=(SIZE, SIZE), data={"order": order}, name=f"switches {index + 1}")


class Sw01(ARCBaseGame):
    def __init__(self, seed: int = 0) -> None:
        self.pressed = 0
        levels = [_level(order, i) for i, order in enumerate(ORDERS)]
        super().__init__("sw01", levels, Camera(width=SIZE, height=SIZE, background=BACKGROUND,
                                                letter_box=BACKGROUND), available_actions=[6], seed=seed)

    def on_set_level(self, level: Level) -> None:
        self.pressed = 0

    def step(self) -> None:
        if self.action.id == GameAction.ACTION6:
            cell = self.camera.display_to_grid(int(self.action.data.get("x", 0)), int(self.action.data.get("y", 0)))
            switch = self.current_level.get_sprite_at(*cell, tag="switch") if cell else None
            if switch is not None:
                self._press(int(switch.name.removeprefix("switch")))
        self.complete_action()

    def _press(self, i: int) -> None:
        order = self.current_level.get_data("order")
        if order[i] == self.pressed:
            self.current_level.get_sprites_by_name(f"switch{i}")[0].color_remap(None, LIT)
            self.pressed += 1
            if self.pressed == len(order):
                self.next_level()
        elif order[i] > self.pressed:  # out of turn: every light goes out (a lit switch is a no-op)
            for sprite in self.current_level.get_sprites_by_tag("switch"):
                sprite.color_remap(None, OFF)
            self.pressed = 0
