"""
Frontier search time on 200x200, 1000x1000 and 4000x4000 grids (5 cm cells: 10 m to 200 m).

The grid is a maze-like floor of rooms, half explored around the robot, so there are many
frontiers of many sizes. The baseline, measured in the same run, is one full pass of
scipy.ndimage.label over the same grid: the least any connected-component search must do.
Target: under 50 ms for 1000x1000.
"""

import time

import numpy as np
from report import print_table, save, summary
from robot_sm.exploration import FrontierSearch
from robot_sm.grid import FREE, OccupancyGrid, OCCUPIED, UNKNOWN
from robot_sm.planar import Pose2D
from scipy import ndimage


def floor(size: int, seed: int = 1) -> OccupancyGrid:
    """Return a floor of 2 m rooms with doors, known within a disc around the centre."""
    rng = np.random.default_rng(seed)
    data = np.full((size, size), FREE, np.int8)
    room = 40
    data[::room, :] = OCCUPIED
    data[:, ::room] = OCCUPIED
    for r in range(0, size, room):
        for c in range(0, size, room):
            door = int(rng.integers(5, room - 15))
            data[r, c + door:c + door + 10] = FREE
            door = int(rng.integers(5, room - 15))
            data[r + door:r + door + 10, c] = FREE
    rows, cols = np.ogrid[:size, :size]
    unknown = (rows - size / 2) ** 2 + (cols - size / 2) ** 2 > (size * 0.35) ** 2
    data[unknown] = UNKNOWN
    return OccupancyGrid(data, 0.05)


def time_call(function, repeats: int) -> list:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    search = FrontierSearch(min_frontier_size=0.3)
    rows, report = [], {}
    for size, repeats in ((200, 50), (1000, 15), (4000, 3)):
        grid = floor(size)
        robot = Pose2D(size * 0.05 / 2 + 0.5, size * 0.05 / 2 + 0.5)
        frontiers = search.search(grid, robot)
        ours = summary(time_call(lambda: search.search(grid, robot), repeats), 1e3)
        base = summary(time_call(lambda: ndimage.label(grid.free()), repeats), 1e3)
        ratio = ours['p50'] / base['p50']
        rows.append({'grid': f'{size}x{size}', 'frontiers': len(frontiers),
                     'search p50 ms': ours['p50'], 'search max ms': ours['max'],
                     'label p50 ms': base['p50'], 'ratio': ratio})
        report[f'{size}x{size}'] = {'frontiers': len(frontiers), 'search_ms': ours,
                                    'label_baseline_ms': base, 'ratio_p50': ratio}
    print_table('frontier search (ms)', rows)
    report['target_1000_ms'] = 50.0
    report['meets_target'] = bool(report['1000x1000']['search_ms']['p50'] < 50.0)
    print(f"1000x1000 target < 50 ms: {'met' if report['meets_target'] else 'MISSED'}")
    save('exploration', report)


if __name__ == '__main__':
    main()
