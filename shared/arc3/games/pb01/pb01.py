"""Push (pb01): walk the red square into the orange block to push it onto the yellow mark.

ACTION1-4 = up, down, left, right. A project game for the ARC-AGI-3 harness (shared.arc3):
self-contained, since the toolkit runs this file on its own. A block pushed into a wall or a
corner stays there (RESET restarts the level). Three levels, each needing more repositioning.
"""

from arcengine import ARCBaseGame, Camera, GameAction, Level, Sprite

WALL, PLAYER, BLOCK, GOAL, FLOOR = 3, 8, 12, 11, 5
MOVES = {GameAction.ACTION1: (0, -1), GameAction.ACTION2: (0, 1), GameAction.ACTION3: (-1, 0),
         GameAction.ACTION4: (1, 0)}

MAPS = [
    ["########",
     "#......#",
     "#.P.B.G#",
     "#......#",
     "########"],
    ["#######",
     "#.....#",
     "#.B...#",
     "#P..#.#",
     "#...#G#",
     "#######"],
    ["#######",
     "#G....#",
     "#..#..#",
     "#.B..P#",
     "#.....#",
     "#######"],
]


def _level(rows: list[str], index: int) -> Level:
    h, w = len(rows), len(rows[0])
    find = {c: (x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c in "PBG"}
    walls = [[WALL if c == "#" else -1 for c in row] for row in rows]
    sprites = [
        Sprite(walls, name="walls", collidable=False),
        Sprite([[GOAL]], name="goal", x=find["G"][0], y=find["G"][1], collidable=False),
        Sprite([[BLOCK]], name="block", x=find["B"][0], y=find["B"][1], layer=1, collidable=False),
        Sprite([[PLAYER]], name="player", x=find["P"][0], y=find["P"][1], layer=2, collidable=False),
    ]
    return Level(sprites=sprites, grid_size=(w, h), data={"rows": rows}, name=f"push {index + 1}")


class Pb01(ARCBaseGame):
    def __init__(self, seed: int = 0) -> None:
        levels = [_level(rows, i) for i, rows in enumerate(MAPS)]
        super().__init__("pb01", levels, Camera(width=8, height=8, background=FLOOR, letter_box=FLOOR),
                         available_actions=[1, 2, 3, 4], seed=seed)

    def step(self) -> None:
        move = MOVES.get(self.action.id)
        if move is not None:
            self._push(*move)
        self.complete_action()

    def _push(self, dx: int, dy: int) -> None:
        rows = self.current_level.get_data("rows")
        player, block, goal = (self.current_level.get_sprites_by_name(n)[0] for n in ("player", "block", "goal"))
        x, y = player.x + dx, player.y + dy
        if rows[y][x] == "#":
            return
        if (x, y) == (block.x, block.y):
            if rows[y + dy][x + dx] == "#":
                return
            block.set_position(x + dx, y + dy)
        player.set_position(x, y)
        if (block.x, block.y) == (goal.x, goal.y):
            self.next_level()
