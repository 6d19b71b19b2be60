"""Maze (mz01): walk the red square to the green exit; grey walls block. ACTION1-4 = up, down, left, right.

A project game for the ARC-AGI-3 harness (shared.arc3): self-contained, since the toolkit runs
this file on its own. Three levels, each a bigger maze.
"""

from arcengine import ARCBaseGame, BlockingMode, Camera, GameAction, Level, Sprite

WALL, PLAYER, EXIT, FLOOR = 3, 8, 14, 5
MOVES = {GameAction.ACTION1: (0, -1), GameAction.ACTION2: (0, 1), GameAction.ACTION3: (-1, 0),
         GameAction.ACTION4: (1, 0)}

MAPS = [
    ["########",
     "#P...#.#",
     "#.##.#.#",
     "#.#..#.#",
     "#.#.##.#",
     "#...#..#",
     "###...E#",
     "########"],
    ["##########",
     "#P.#.....#",
     "#.##.###.#",
     "#....#...#",
     "####.#.###",
     "#....#...#",
     "#.######.#",
     "#.#....#.#",
     "#...##..E#",
     "##########"],
    ["############",
     "#P...#.....#",
     "###.##.###.#",
     "#...#..#...#",
     "#.###.##.###",
     "#...#..#...#",
     "###.##.###.#",
     "#.....#....#",
     "#.###.#.####",
     "#.#...#....#",
     "#...#...##E#",
     "############"],
]


def _level(rows: list[str], index: int) -> Level:
    h, w = len(rows), len(rows[0])
    walls = [[WALL if c == "#" else -1 for c in row] for row in rows]
    find = {c: (x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c in "PE"}
    sprites = [
        Sprite(walls, name="walls", blocking=BlockingMode.PIXEL_PERFECT),
        Sprite([[EXIT]], name="exit", x=find["E"][0], y=find["E"][1], blocking=BlockingMode.BOUNDING_BOX),
        Sprite([[PLAYER]], name="player", x=find["P"][0], y=find["P"][1], layer=1,
               blocking=BlockingMode.BOUNDING_BOX),
    ]
    return Level(sprites=sprites, grid_size=(w, h), data={}, name=f"maze {index + 1}")


class Mz01(ARCBaseGame):
    def __init__(self, seed: int = 0) -> None:
        levels = [_level(rows, i) for i, rows in enumerate(MAPS)]
        super().__init__("mz01", levels, Camera(width=8, height=8, background=FLOOR, letter_box=FLOOR),
                         available_actions=[1, 2, 3, 4], seed=seed)

    def step(self) -> None:
        move = MOVES.get(self.action.id)
        if move is not None:
            hit = self.try_move("player", *move)
            if any(s.name == "exit" for s in hit):
                self.next_level()
        self.complete_action()
