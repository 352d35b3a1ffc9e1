"""Exact multi-server MVA (the `cpu_model = "exact"` node model) against hand results and the product form."""

from __future__ import annotations

import itertools
import math

import pytest

from mrsim.contention import MemoryDemands, MixCache, NodeSpec
from mrsim.contention.multiserver import exact_multiserver_mva, lattice_size
from mrsim.contention.mva import exact_mva
from mrsim.contention.node import solve_mix, solve_rows
from mrsim.errors import InputError


def product_form(rows, pops, servers):
    """Brute-force oracle: per-class throughputs X_c = G(N - e_c) / G(N) from the normalising constant of the
    BCMP product form, f_k(n_k) = |n_k|! / beta_k(|n_k|) prod_c D_ck^n_ck / n_ck! with beta_k(j) = prod min(i, c_k)
    for a c_k-server station (j! / j! = 1 for a delay centre's |n_k|! / beta(|n_k|), as beta = j! there)."""
    n_cls, n_k = len(rows), len(servers)

    def beta(k: int, j: int) -> float:
        c = servers[k]
        if c == 0:  # delay: infinitely many servers
            return math.factorial(j)
        return math.prod(min(i, c) for i in range(1, j + 1))

    def g(population) -> float:
        total = 0.0
        # every way to place each class's jobs over the centres
        per_class = [list(compositions(n, n_k)) for n in population]
        for placement in itertools.product(*per_class):
            w = 1.0
            for k in range(n_k):
                nk = sum(placement[c][k] for c in range(n_cls))
                w *= math.factorial(nk) / beta(k, nk)
                for c in range(n_cls):
                    w *= rows[c][k] ** placement[c][k] / math.factorial(placement[c][k])
            total += w
        return total

    full = g(pops)
    return [g([n - (c == i) for c, n in enumerate(pops)]) / full if pops[i] else 0.0 for i in range(n_cls)]


def compositions(n: int, parts: int):
    if parts == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, parts - 1):
            yield (first,) + rest


def test_one_multiserver_station_by_hand():
    # N jobs of 100 s on 4 cores: nobody waits up to 4 jobs, then the cores are shared: R = max(100, 25 N).
    for n in range(1, 11):
        res = exact_multiserver_mva([[100.0]], [n], [4])
        assert res.response[0] == pytest.approx(max(100.0, 25.0 * n), rel=1e-12)
        assert res.utilization[0] == pytest.approx(min(1.0, n / 4), rel=1e-12)


def test_two_server_cpu_and_a_disk_by_hand():
    # One class, N = 2, a 2-server CPU (30 s) and a disk (10 s). Product form: weights 30^2/2, 30*10, 10^2 for
    # (2,0), (1,1), (0,2); disk busy 400/850 of the time, X = (400/850)/10, R = 2/X = 42.5 s.
    res = exact_multiserver_mva([[30.0, 10.0]], [2], [2, 1])
    assert res.response[0] == pytest.approx(42.5, rel=1e-12)


def test_single_server_and_delay_agree_with_exact_mva():
    # c = 1 is the load-independent queue and c = 0 the delay centre: exact MVA's own recursion.
    for n in (1, 3, 7):
        ours = exact_multiserver_mva([[4.0, 2.0, 1.5]], [n], [1, 0, 1])
        ref = exact_mva([4.0, 2.0, 1.5], n, kinds=NodeSpec(2, 1).kinds)  # queue, delay, queue
        assert ours.response[0] == pytest.approx(ref.response[n], rel=1e-12)


@pytest.mark.parametrize("servers", [[2, 1], [3, 1, 0], [4, 1]])
def test_multiclass_matches_the_product_form(servers):
    rows = [[30.0, 10.0, 5.0][: len(servers)], [10.0, 20.0, 1.0][: len(servers)], [50.0, 0.0, 2.0][: len(servers)]]
    pops = [2, 3, 1]
    res = exact_multiserver_mva(rows, pops, servers)
    for c, x in enumerate(product_form(rows, pops, servers)):
        assert res.throughput[c] == pytest.approx(x, rel=1e-10)
        assert res.response[c] == pytest.approx(pops[c] / x, rel=1e-10)


def test_response_scales_with_demand_magnitude_only():
    # The engine solves a mix per demand shape: a class's response per second of demand must not depend on the
    # class's size (product-form weights scale by alpha^N_c).
    base = exact_multiserver_mva([[3.0, 1.0], [1.0, 1.0]], [2, 2], [4, 1])
    scaled = exact_multiserver_mva([[30.0, 10.0], [1.0, 1.0]], [2, 2], [4, 1])
    assert scaled.response[0] == pytest.approx(10 * base.response[0], rel=1e-12)
    assert scaled.response[1] == pytest.approx(base.response[1], rel=1e-12)


def test_node_spec_selects_the_model_and_falls_back_beyond_the_lattice_bound():
    seidmann = solve_mix(NodeSpec(4, 0), [(100.0,)], [2])
    exact = solve_mix(NodeSpec(4, 0, cpu_model="exact"), [(100.0,)], [2])
    assert seidmann.response[0] > 100.0 and exact.response[0] == pytest.approx(100.0, rel=1e-12)
    rows = [(1.0, 0.5), (1.0, 0.2), (1.0, 0.9)]  # three shapes: no merging
    assert lattice_size([30, 30, 30]) > 20_000
    sol, fell_back = solve_rows(NodeSpec(4, 1, cpu_model="exact"), rows, [30, 30, 30])
    ref = solve_mix(NodeSpec(4, 1), rows, [30, 30, 30])
    assert fell_back and sol.response == ref.response
    cache = MixCache(NodeSpec(4, 1, cpu_model="exact"))
    sid, _ = cache.shape_of((1.0, 0.5))
    cache.solve(((sid, 3),))
    assert cache.stats()["exact_fallbacks"] == 0


def test_bad_input_is_one_line():
    with pytest.raises(InputError, match="integer"):
        exact_multiserver_mva([[1.0]], [1.5], [2])
    with pytest.raises(InputError, match="servers"):
        exact_multiserver_mva([[1.0]], [1], [-1])
    with pytest.raises(InputError, match="cpu_model"):
        NodeSpec(4, 1, cpu_model="erlang")
    with pytest.raises(InputError, match="one disk"):
        NodeSpec(4, 2, memory="smp")
    with pytest.raises(InputError, match="applies to nodes without a memory"):
        NodeSpec(4, 1, cpu_model="exact", memory="numa")


# Section 4.5's prose gives, per figure, how far each model is from the experiment (relative errors, or "x % of
# the experimental value"); the experiment cancels in the ratio (1 - e_with) / (1 - e_without) of the two
# *model* outputs, which this implementation must reproduce. "With memory" is Algorithm 3; "without" is the
# application-level model alone on D_core + D_mem. Figures 4.4-4.6 match an exact multi-server CPU (the text:
# without memory contention "the average execution time does not vary until the concurrency level exceeds the
# number of cores", which Seidmann's model does not do); Figure 4.7 matches Seidmann solved by exact MVA, with
# Algorithm 3's throughput capped at m / T(m) at concurrency 18. Tolerance: the printed percentages' rounding
# (half a unit of the last printed digit of each, relative), at least 0.5 %.
CHAPTER_4_RATIOS = [
    # figure, cores, demands (Table 4.3), concurrency, (with %, without %, half-units), without-model, cap
    ("4.4", 4, MemoryDemands(26.26, 11.8), 4, (100 - 11.2, 100 - 37, 0.05, 0.5), "exact", False),
    ("4.4", 4, MemoryDemands(26.26, 11.8), 8, (89, 63, 0.5, 0.5), "exact", False),
    ("4.5", 12, MemoryDemands(19.70, 8.31), 18, (90, 25, 0.5, 0.5), "exact", False),
    ("4.6", 4, MemoryDemands(10.94, 8.67, 0.0, 8.93), 4, (100 - 17.6, 100 - 30.6, 0.05, 0.05), "exact", False),
    ("4.7", 12, MemoryDemands(20.16, 8.88, 0.0, 0.8), 12, (100 - 12.5, 100 - 71, 0.05, 0.5), "seidmann", False),
    ("4.7", 12, MemoryDemands(20.16, 8.88, 0.0, 0.8), 18, (86, 100 - 76, 0.5, 0.5), "seidmann", True),
]


@pytest.mark.parametrize("figure,cores,d,n,printed,without,cap", CHAPTER_4_RATIOS)
def test_chapter_4_figures_ratio_of_model_outputs(figure, cores, d, n, printed, without, cap):
    from mrsim.contention.multicore import two_layer_single_class

    with_pct, without_pct, half_with, half_without = printed
    tolerance = max(0.005, half_with / with_pct + half_without / without_pct)
    with_memory = two_layer_single_class(cores, n, d, cap_throughput=cap).execution_time
    row = [d.cpu_time] + ([d.disk] if d.disk else [])
    spec = NodeSpec(cores, 1 if d.disk else 0)
    if without == "exact":
        plain = exact_multiserver_mva([row], [n], [cores] + [1] * spec.disks).response[0]
    else:
        plain = exact_mva(spec.expand(row), n, kinds=spec.kinds).response[n]
    assert with_memory / plain == pytest.approx(with_pct / without_pct, rel=tolerance), figure


def test_proportional_classes_are_merged_exactly():
    # One job per class, as the literal Epochs algorithm asks: 40 jobs would be a 2**40 lattice, but jobs of one
    # shape are one class of the product form (sizes only scale their response).
    sizes = [1.0 + 0.1 * i for i in range(40)]
    rows = [(3.0 * s, 1.0 * s) for s in sizes]
    sol, fell_back = solve_rows(NodeSpec(4, 1, cpu_model="exact"), rows, [1] * 40)
    merged = exact_multiserver_mva([[0.75, 0.25]], [40], [4, 1])
    assert not fell_back
    for s, r in zip(sizes, sol.response):
        assert r == pytest.approx(4.0 * s * merged.response[0], rel=1e-12)
    # and it agrees with the unmerged solve where that is small enough to run
    few = [(3.0, 1.0), (6.0, 2.0), (1.5, 0.5)]
    direct = exact_multiserver_mva(few, [1, 1, 1], [4, 1])
    assert solve_rows(NodeSpec(4, 1, cpu_model="exact"), few, [1, 1, 1])[0].response == \
        pytest.approx(direct.response, rel=1e-12)
