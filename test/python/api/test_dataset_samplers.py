"""msmlir.dataset samplers, source sampling arguments and dataset queries."""
import numpy as np
import pytest

import msmlir as ms
import msmlir.dataset as ds


def ids(d, num_epochs=1):
    it = d.create_tuple_iterator(num_epochs=num_epochs, output_numpy=True)
    out = [[int(np.asarray(r[0]).reshape(-1)[0]) for r in it] for _ in range(num_epochs)]
    return out[0] if num_epochs == 1 else out


def src(n=10, **kw):
    return ds.NumpySlicesDataset(np.arange(n), **kw)


# ---------------------------------------------------------------------------
# builtin samplers
# ---------------------------------------------------------------------------

def test_sequential_sampler():
    assert ids(src(sampler=ds.SequentialSampler())) == list(range(10))
    assert ids(src(sampler=ds.SequentialSampler(start_index=3))) == list(range(3, 10))
    d = src(sampler=ds.SequentialSampler(2, 5))
    assert ids(d) == [2, 3, 4, 5, 6] and d.get_dataset_size() == 5
    assert src(sampler=ds.SequentialSampler(8, 5)).get_dataset_size() == 2
    with pytest.raises(RuntimeError, match="start_index"):
        ids(src(sampler=ds.SequentialSampler(10)))
    with pytest.raises(ValueError):
        ds.SequentialSampler(-1)


def test_random_sampler():
    ds.config.set_seed(0)
    d = src(20, sampler=ds.RandomSampler())
    e1, e2 = ids(d, num_epochs=2)
    assert sorted(e1) == sorted(e2) == list(range(20)) and e1 != e2 and e1 != list(range(20))
    ds.config.set_seed(0)
    assert ids(d, num_epochs=2) == [e1, e2]                  # deterministic under the seed
    part = src(20, sampler=ds.RandomSampler(num_samples=5))
    got = ids(part)
    assert len(got) == 5 == part.get_dataset_size() and len(set(got)) == 5
    rep = src(5, sampler=ds.RandomSampler(replacement=True, num_samples=200))
    got = ids(rep)
    assert len(got) == 200 and set(got) == set(range(5))     # with replacement: repeats
    assert rep.get_dataset_size() == 200
    with pytest.raises(TypeError):
        ds.RandomSampler(replacement=1)


def test_subset_samplers():
    d = src(sampler=ds.SubsetSampler([7, 2, 2, 9]))
    assert ids(d) == [7, 2, 2, 9] and d.get_dataset_size() == 4
    assert ids(src(sampler=ds.SubsetSampler([7, 2, 9], num_samples=2))) == [7, 2]
    ds.config.set_seed(1)
    r = src(sampler=ds.SubsetRandomSampler([1, 3, 5, 7, 9]))
    e1, e2 = ids(r, num_epochs=2)
    assert sorted(e1) == sorted(e2) == [1, 3, 5, 7, 9] and (e1 != e2 or e1 != [1, 3, 5, 7, 9])
    with pytest.raises(IndexError):
        ids(src(sampler=ds.SubsetSampler([3, 10])))
    with pytest.raises(TypeError):
        ds.SubsetSampler([1.5])
    # a plain list / array / iterable is a sampler too
    assert ids(src(sampler=[4, 1])) == [4, 1]
    assert ids(src(sampler=np.array([0, 9]))) == [0, 9]
    assert ids(src(sampler=range(3))) == [0, 1, 2]


def test_weighted_random_sampler():
    ds.config.set_seed(2)
    d = src(4, sampler=ds.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], num_samples=400))
    got = np.array(ids(d))
    assert set(got.tolist()) == {1, 3} and 0.65 < (got == 3).mean() < 0.85
    with pytest.raises(ValueError):
        ds.WeightedRandomSampler([0.0, 0.0])


def test_distributed_sampler_partitions_the_data():
    n, shards = 23, 4
    per = -(-n // shards)                                     # ceil: every shard the same size
    for shuffle in (False, True):
        ds.config._reset()                                   # no seed at all: still consistent
        parts = [ids(src(n, sampler=ds.DistributedSampler(shards, s, shuffle=shuffle)))
                 for s in range(shards)]
        assert all(len(p) == per for p in parts)
        flat = [i for p in parts for i in p]
        assert set(flat) == set(range(n))                    # together: every row
        assert len(flat) - len(set(flat)) == per * shards - n  # only the wrap-around repeats
        if not shuffle:
            assert parts[1] == [1, 5, 9, 13, 17, 21]
            assert parts[3] == [3, 7, 11, 15, 19, 0]         # wraps to the start
    # with shuffle, every shard draws the same permutation: the same in another "process"
    ds.config.set_seed(7)
    a = ids(src(n, sampler=ds.DistributedSampler(shards, 2)), num_epochs=2)
    ds.config.set_seed(7)
    b = ids(src(n, sampler=ds.DistributedSampler(shards, 2)), num_epochs=2)
    assert a == b and a[0] != a[1]                           # reshuffled every epoch
    # each epoch the shards still partition the rows
    ds.config.set_seed(7)
    both = [ids(src(n, sampler=ds.DistributedSampler(shards, s)), num_epochs=2)
            for s in range(shards)]
    for e in range(2):
        assert set(i for p in both for i in p[e]) == set(range(n))
    d = src(n, sampler=ds.DistributedSampler(shards, 0, num_samples=3))
    assert d.get_dataset_size() == 3 and len(ids(d)) == 3
    with pytest.raises(RuntimeError):
        ds.DistributedSampler(2, 2)
    with pytest.raises(TypeError):
        ds.DistributedSampler(2, 0, shuffle=None)


def test_source_sharding_arguments():
    n = 10
    parts = [ids(src(n, num_shards=3, shard_id=s, shuffle=False)) for s in range(3)]
    assert parts == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    assert src(n, num_shards=3, shard_id=1).get_dataset_size() == 4
    ds.config.set_seed(5)
    shuffled = [ids(src(n, num_shards=2, shard_id=s)) for s in range(2)]   # shuffle=None
    assert sorted(shuffled[0] + shuffled[1]) == list(range(n))
    assert isinstance(src(n, num_shards=2, shard_id=0).sampler, ds.DistributedSampler)
    d = src(n, num_shards=2, shard_id=0, num_samples=2, shuffle=False)
    assert ids(d) == [0, 2]
    with pytest.raises(RuntimeError):
        src(n, num_shards=2)
    with pytest.raises(ValueError):
        src(n, num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="Conflicting"):
        src(n, sampler=ds.SequentialSampler(), shuffle=False)
    with pytest.raises(ValueError, match="Conflicting"):
        src(n, sampler=ds.RandomSampler(), num_shards=2, shard_id=0)


def test_source_shuffle_and_num_samples():
    assert isinstance(src().sampler, ds.RandomSampler) and src().shuffle_flag
    assert isinstance(src(shuffle=False).sampler, ds.SequentialSampler)
    assert ids(src(shuffle=False, num_samples=4)) == [0, 1, 2, 3]
    ds.config.set_seed(3)
    got = ids(src(20, num_samples=6))
    assert len(set(got)) == 6 and src(20, num_samples=6).get_dataset_size() == 6
    assert src(num_samples=0).get_dataset_size() == 10      # 0: all rows


def test_samplers_deterministic_under_global_seed():
    ms.set_seed(123)
    a = ids(src(30, sampler=ds.RandomSampler()))
    ms.set_seed(123)
    assert ids(src(30, sampler=ds.RandomSampler())) == a
    ms.set_seed(124)
    assert ids(src(30, sampler=ds.RandomSampler())) != a


def test_user_sampler_and_child_samplers():
    class Reverse(ds.Sampler):
        def __init__(self):
            super().__init__()
            self.resets = 0

        def __iter__(self):
            for i in range(self.dataset_size - 1, -1, -1):
                yield i

        def reset(self):
            self.resets += 1

    s = Reverse()
    d = src(5, sampler=s)
    assert ids(d, num_epochs=2) == [[4, 3, 2, 1, 0]] * 2
    assert s.resets == 1 and d.get_dataset_size() == 5

    class Firsts(ds.Sampler):
        def __iter__(self):
            return iter(range(self.num_samples))

    assert ids(src(8, sampler=Firsts(num_samples=3))) == [0, 1, 2]
    # the child samples the dataset; the parent samples the child's output
    parent = ds.SequentialSampler(start_index=1, num_samples=2)
    parent.add_child(ds.SubsetSampler([9, 7, 5, 3]))
    assert ids(src(sampler=parent)) == [7, 5]
    assert parent.get_num_samples() == 2 and src(sampler=parent).get_dataset_size() == 2
    ds.config.set_seed(0)
    shard_of_random = ds.DistributedSampler(2, 1, shuffle=False)
    shard_of_random.add_child(ds.RandomSampler())
    got = ids(src(10, sampler=shard_of_random))
    assert len(got) == 5 and len(set(got)) == 5


def test_generator_dataset_samplers_and_use_sampler():
    class Source:
        def __getitem__(self, i):
            return (np.array(i * 10),)

        def __len__(self):
            return 6

    d = ds.GeneratorDataset(Source(), ["v"], sampler=ds.SubsetSampler([5, 0]))
    assert ids(d) == [50, 0]
    d = ds.GeneratorDataset(Source(), ["v"], num_shards=2, shard_id=1, shuffle=False)
    assert ids(d) == [10, 30, 50]
    d = ds.GeneratorDataset(Source(), ["v"], shuffle=False).map(lambda v: v + 1)
    d.use_sampler(ds.SequentialSampler(4))
    assert ids(d) == [41, 51]

    def gen():
        yield (np.array(1),)

    with pytest.raises(ValueError):
        ds.GeneratorDataset(gen, ["v"], sampler=ds.SequentialSampler())


def test_dataset_queries():
    x = np.zeros((10, 3, 4), np.float32)
    y = np.arange(10, dtype=np.int32)
    d = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False)
    assert d.get_col_names() == ["x", "y"]
    assert d.output_shapes() == [[3, 4], []]
    assert d.output_types() == [np.dtype(np.float32), np.dtype(np.int32)]
    b = d.batch(4).repeat(3)
    assert b.output_shapes() == [[4, 3, 4], [4]]
    assert b.get_dataset_size() == 9 and b.get_batch_size() == 4 and b.get_repeat_count() == 3
    assert d.get_batch_size() == 1 and d.get_repeat_count() == 1
    assert d.repeat().get_repeat_count() == -1
    m = d.map(lambda v: (v, v * 2), "y", ["y", "y2"])
    assert m.get_col_names() == ["y", "y2", "x"]             # MindSpore's column layout
    m = d.map(lambda v: v.astype(np.float64), "y", "z")
    assert m.get_col_names() == ["x", "z"] and m.output_types()[1] == np.float64
    assert d.apply(lambda data: data.take(3)).get_dataset_size() == 3
