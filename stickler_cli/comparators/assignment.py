"""Optimal one-to-one assignment in Python: scipy's method, step for step, for the ANLS comparator.

scipy's solver (Crouse's shortest augmenting path method,
scipy/optimize/rectangular_lsap/rectangular_lsap.cpp) is short: ``shortest_paths`` below takes
the same steps in the same order on the same float64 values, so it returns the same assignment,
ties included (tests/engine/test_assignment.py checks it against scipy on matrices full of ties).
comparators/anls.py runs it after its own greedy start: munkres' compiled solver, which the
reference library's ANLS* uses, is the same method started that way. The engine's lists are
solved by scipy's compiled code itself (scipy_lsap.py), which is several times faster per solve.
"""

from __future__ import annotations

import math


def shortest_paths(cost: list[list[float]], u: list[float], row_of_col: list[int], col_of_row: list[int]) -> None:
    """Complete the assignment in place: Crouse's shortest augmenting path method.

    From each unmatched row, a Dijkstra search over reduced costs reaches a
    free column; columns are scanned in a working order that starts reversed
    and loses each reached column by swapping in the last one, and among
    columns of least path cost the last free one (else the first) is taken.
    """
    n, m = len(cost), len(cost[0])
    inf = math.inf
    v = [0.0] * m
    for start in range(n):
        if col_of_row[start] != -1:
            continue
        path_cost = [inf] * m
        came_from = [-1] * m
        rows_seen = [False] * n
        cols_seen = [False] * m
        order = list(range(m - 1, -1, -1))
        left = m
        reach = 0.0
        row = start
        sink = -1
        while sink == -1:
            rows_seen[row] = True
            lowest = inf
            index = -1
            base = u[row]
            costs = cost[row]
            for position in range(left):
                j = order[position]
                reduced = reach + costs[j] - base - v[j]
                if reduced < path_cost[j]:
                    came_from[j] = row
                    path_cost[j] = reduced
                value = path_cost[j]
                if value < lowest or (value == lowest and row_of_col[j] == -1):
                    lowest = value
                    index = position
            reach = lowest
            col = order[index]
            if row_of_col[col] == -1:
                sink = col
            else:
                row = row_of_col[col]
            cols_seen[col] = True
            left -= 1
            order[index] = order[left]
        u[start] += reach
        for i in range(n):
            if rows_seen[i] and i != start:
                u[i] += reach - path_cost[col_of_row[i]]
        for j in range(m):
            if cols_seen[j]:
                v[j] -= reach - path_cost[j]
        col = sink
        while True:
            row = came_from[col]
            row_of_col[col] = row
            col, col_of_row[row] = col_of_row[row], col
            if row == start:
                break
