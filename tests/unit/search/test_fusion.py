from remem.search.fusion import rrf_fuse, weighted_fuse


def test_rrf_rewards_agreement():
    fused = rrf_fuse([(1, 0.9), (2, 0.8)], [(2, 5.0), (3, 4.0)], k=60)
    assert fused[0].rowid == 2
    c2 = fused[0]
    assert c2.vector_rank == 2 and c2.lexical_rank == 1
    # normalised by the best attainable (rank 1 in both channels)
    assert abs(c2.fused - (1 / 62 + 1 / 61) / (2 / 61)) < 1e-12
    assert 0 < fused[-1].fused < c2.fused <= 1


def test_rrf_weights_shift_the_balance():
    vec, lex = [(1, 0.9)], [(2, 5.0)]
    assert rrf_fuse(vec, lex, lexical_weight=2.0)[0].rowid == 2
    assert rrf_fuse(vec, lex, vector_weight=2.0)[0].rowid == 1


def test_weighted_normalises_channels():
    fused = weighted_fuse(
        [(1, 0.9), (2, 0.5)], [(2, 10.0), (3, 1.0)], vector_weight=0.7, lexical_weight=0.3
    )
    scores = {c.rowid: c.fused for c in fused}
    # divided by the weights' sum (1.0 here)
    assert abs(scores[1] - 0.7) < 1e-9
    assert abs(scores[2] - 0.3) < 1e-9  # worst vector (0) + best lexical (1 x 0.3)
    assert abs(scores[3] - 0.03) < 1e-9
    halves = weighted_fuse([(1, 0.9)], [(1, 3.0)], vector_weight=0.5, lexical_weight=1.5)
    assert halves[0].fused == 1.0  # best in both channels = 1 whatever the weights


def test_fusion_breaks_ties_by_rank_then_rowid():
    # 5 and 4 are each first in one channel: equal RRF scores, equal best rank -> lower rowid
    tied = rrf_fuse([(5, 0.5)], [(4, 1.0)])
    assert tied[0].fused == tied[1].fused
    assert [c.rowid for c in tied] == [4, 5]
    # whatever order the channels list them in
    assert [c.rowid for c in rrf_fuse([(4, 0.5)], [(5, 1.0)])] == [4, 5]


def test_empty_channels():
    assert rrf_fuse([], []) == []
    assert [c.rowid for c in weighted_fuse([], [(1, 2.0)])] == [1]
