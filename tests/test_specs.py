"""Machine specs: units and provenance, validation, variants (ideal / without / only)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from mark1 import specs
from mark1.exceptions import SpecError
from mark1.machine.potentiometers import PotentiometerRack
from mark1.specs import MARK_I, NON_IDEALITIES, SMALL, MachineSpec, RackSpec, ResponseSpec, TrainerSpec

STATUS_WORDS = {"documented", "single-source", "contradictory", "datasheet", "assumed"}


def switch_fields():
    """(dotted key, non-ideality, param metadata) of every field that names a ``param(switch=...)``."""
    return [(f"{cls._group}.{f.name}", f.metadata["switch"], f.metadata)
            for cls in (specs.RetinaSpec, specs.PatchboardSpec, RackSpec, ResponseSpec, specs.TimingSpec, TrainerSpec)
            for f in dataclasses.fields(cls) if f.metadata.get("switch") is not None]


def on_values(names):
    """The ``param(on=...)`` values of the fields of the named non-idealities (dotted key -> value)."""
    return {key: meta["on"] for key, name, meta in switch_fields() if name in names and meta["on"] is not None}


#: MARK_I with the non-idealities it has off by default (continuous drive; no decay since
#: issue 15; the device laws) switched on by their fields' param(on=...), so that every
#: non-ideality is on.
ALL_ON = MARK_I.with_overrides(on_values([n for n in NON_IDEALITIES if not MARK_I.is_on(n)]))


# -- describe --------------------------------------------------------------------------

def test_describe_every_parameter_has_unit_and_status():
    rows = specs.describe(MARK_I)
    assert len(rows) == len(specs.parameter_keys()) > 30
    assert [r["key"] for r in rows] == specs.parameter_keys()
    for r in rows:
        assert isinstance(r["unit"], str) and r["unit"].strip(), r["key"]
        assert r["status"] in STATUS_WORDS, r
        assert isinstance(r["doc"], str) and r["doc"].strip(), r["key"]
        assert r["value"] == MARK_I.get(r["key"])
        assert r["default"] == MachineSpec().get(r["key"])


def test_describe_reports_the_value_of_the_given_spec():
    rows = {r["key"]: r for r in specs.describe(SMALL)}
    assert rows["patchboard.n_associators"]["value"] == 64
    assert rows["patchboard.n_associators"]["default"] == 512
    assert rows["timing.period"]["value"] == 1.0


def test_small_preset():
    assert SMALL.patchboard.n_associators == 64
    assert SMALL.timing.period == 1.0
    assert SMALL.retina.shape == (20, 20)


# -- ideal / without / only --------------------------------------------------------------

def test_all_on_base_has_every_non_ideality_on():
    assert all(ALL_ON.is_on(n) for n in NON_IDEALITIES)
    assert not ALL_ON.is_ideal
    assert not MARK_I.is_ideal
    assert ALL_ON.rack.drive == "ratchet" and ALL_ON.rack.law == "soft-bounds" and ALL_ON.rack.out_res == 0.01


def test_the_non_idealities_are_the_fields_switches():
    keys = {name: {key: meta["off"] for key, n, meta in switch_fields() if n == name}
            for _, name, _ in switch_fields()}
    assert NON_IDEALITIES == keys
    assert list(NON_IDEALITIES)[:5] == ["lens", "photocell_dynamics", "light_history", "cell_spread", "end_stops"]
    assert NON_IDEALITIES["speed_limit"] == {"rack.motor_speed": math.inf}
    assert NON_IDEALITIES["lens"] == {"retina.blur": 0.0, "retina.uneven_lighting": 0.0}
    for name, off in NON_IDEALITIES.items():
        assert len({key.split(".")[0] for key in off}) == 1, name       # one part of the machine each
    assert set(specs.LEARNER_NON_IDEALITIES) == {n for n, off in NON_IDEALITIES.items()
                                                 if next(iter(off)).startswith("rack.")}
    assert {"backlash", "decay", "adc", "ratchet"} <= set(specs.LEARNER_NON_IDEALITIES)
    assert "lens" not in specs.LEARNER_NON_IDEALITIES


def test_a_switch_needs_its_name():
    with pytest.raises(AssertionError, match="need switch"):
        specs.param(1.0, "s", "assumed", "an off value without a switch", off=0.0)


@pytest.mark.parametrize("name", sorted(NON_IDEALITIES))
def test_a_non_idealitys_on_values_switch_on_only_it(name):
    on = on_values([name])
    if not on:                                  # on by default: the ideal machine with it back on
        assert MARK_I.is_on(name)
        return
    spec = MARK_I.ideal().with_overrides(on)
    assert spec.is_on(name)
    assert [n for n in NON_IDEALITIES if spec.is_on(n)] == [name]


@pytest.mark.parametrize("base", [MARK_I, SMALL, ALL_ON])
def test_ideal_is_ideal(base):
    ideal = base.ideal()
    assert ideal.is_ideal
    assert not any(ideal.is_on(n) for n in NON_IDEALITIES)
    assert math.isinf(ideal.rack.motor_speed)
    assert ideal.rack.end_stops is False
    assert ideal.retina.dynamics is False
    # the ideal machine keeps the wiring-relevant parameters
    assert ideal.patchboard == base.patchboard
    assert ideal.timing == base.timing


@pytest.mark.parametrize("name", sorted(NON_IDEALITIES))
def test_without_switches_off_only_that_one(name):
    spec = ALL_ON.without(name)
    assert not spec.is_on(name)
    for other in NON_IDEALITIES:
        if other != name:
            assert spec.is_on(other), (name, other)
    for key, value in NON_IDEALITIES[name].items():
        assert spec.get(key) == value


@pytest.mark.parametrize("name", sorted(NON_IDEALITIES))
def test_only_switches_on_only_that_one(name):
    spec = ALL_ON.only(name)
    assert spec.is_on(name)
    for other in NON_IDEALITIES:
        if other != name:
            assert not spec.is_on(other), (name, other)
    for key in NON_IDEALITIES[name]:
        assert spec.get(key) == ALL_ON.get(key)


def test_without_several_and_unknown():
    spec = ALL_ON.without("backlash", "decay")
    assert not spec.is_on("backlash") and not spec.is_on("decay") and spec.is_on("end_stops")
    with pytest.raises(SpecError, match="did you mean 'backlash'"):
        ALL_ON.without("backlash_")
    with pytest.raises(SpecError, match="did you mean 'end_stops'"):
        ALL_ON.only("end_stop")


# -- with_overrides ------------------------------------------------------------------------

def test_overrides_dotted_and_nested_agree():
    a = SMALL.with_overrides({"rack.motor_speed": 0.5, "timing": {"settle": 0.2}})
    b = SMALL.with_overrides({"rack": {"motor_speed": 0.5}, "timing.settle": 0.2})
    assert a == b
    assert a.rack.motor_speed == 0.5 and a.timing.settle == 0.2
    assert SMALL.rack.motor_speed == 0.25      # the original is untouched


def test_overrides_conversions():
    s = SMALL.with_overrides({"rack.motor_speed": "inf", "rack.backlash": 0, "retina.shape": [10, 12],
                              "name": "mine"})
    assert math.isinf(s.rack.motor_speed)
    assert isinstance(s.rack.backlash, float) and s.rack.backlash == 0.0
    assert s.retina.shape == (10, 12)
    assert s.name == "mine"


@pytest.mark.parametrize("base", [MARK_I, SMALL, SMALL.ideal(), ALL_ON.with_overrides({"rack.topology": "split"})])
def test_to_dict_round_trip(base):
    assert MachineSpec().with_overrides(base.to_dict()) == base


@pytest.mark.parametrize("key, suggestion", [
    ("rack.motor_sped", "rack.motor_speed"),
    ("retina.rise_tme", "retina.rise_time"),
    ("timng.period", "timing.period"),
])
def test_unknown_key_raises_with_suggestion(key, suggestion):
    with pytest.raises(SpecError, match=f"did you mean '{suggestion}'") as info:
        SMALL.with_overrides({key: 1.0})
    assert info.value.key == key
    assert isinstance(info.value, ValueError)


def test_unknown_key_without_close_match():
    with pytest.raises(SpecError, match="unknown parameter") as info:
        SMALL.with_overrides({"rack.zzzzzzzz.q": 1})
    assert info.value.key == "rack.zzzzzzzz.q"


@pytest.mark.parametrize("key, value", [
    ("rack.motor_speed", -0.25),
    ("rack.motor_speed", 0.0),                  # open at 0
    ("rack.backlash", -0.001),
    ("retina.threshold", 1.5),
    ("retina.uneven_lighting", 0.99),
    ("rack.motor_spread", 0.6),
    ("patchboard.n_associators", 0),
    ("retina.rise_time", float("nan")),
    ("retina.history_ratio", 0.5),
])
def test_out_of_range_values(key, value):
    with pytest.raises(SpecError) as info:
        SMALL.with_overrides({key: value})
    assert info.value.key == key
    assert key in str(info.value)


@pytest.mark.parametrize("key, value", [
    ("rack.motor_speed", "fast"),
    ("rack.motor_speed", True),
    ("rack.end_stops", 1),
    ("patchboard.n_associators", 64.0),
    ("patchboard.excitatory", True),
    ("retina.shape", (20,)),
    ("retina.shape", (20, 0)),
    ("retina.shape", 20),
    ("retina.polarity", "both"),
    ("trainer.rule", "delta"),
    ("name", 3),
])
def test_wrong_types(key, value):
    with pytest.raises(SpecError) as info:
        SMALL.with_overrides({key: value})
    assert info.value.key == key


def test_overrides_must_be_a_mapping():
    with pytest.raises(SpecError):
        SMALL.with_overrides([("rack.motor_speed", 1.0)])


def test_period_shorter_than_the_cycle():
    t = SMALL.timing
    busy = t.card_change + t.settle + t.a_delay + t.r_delay
    SMALL.with_overrides({"timing.period": busy})                    # exactly enough is fine
    with pytest.raises(SpecError, match="card_change") as info:
        SMALL.with_overrides({"timing.period": busy * 0.99})
    assert info.value.key == "timing.period"
    with pytest.raises(SpecError) as info:
        SMALL.with_overrides({"timing.settle": 0.9})                   # 0.2 + 0.9 + delays > 1 s
    assert info.value.key == "timing.period"


def test_patchboard_capacity_checks():
    with pytest.raises(SpecError) as info:
        SMALL.with_overrides({"patchboard.excitatory": 0, "patchboard.inhibitory": 0})
    assert info.value.key == "patchboard.excitatory"
    with pytest.raises(SpecError) as info:
        SMALL.with_overrides({"retina.shape": (3, 3)})                 # 15 inputs > 9 S-units
    assert info.value.key == "patchboard.excitatory"
    with pytest.raises(SpecError, match="at least 3") as info:
        SMALL.with_overrides({"patchboard.fan_out": 2, "patchboard.n_associators": 64})
    assert info.value.key == "patchboard.fan_out"


def test_split_topology_needs_divisible_units():
    SMALL.with_overrides({"rack.topology": "split"})                   # 64 % 8 == 0
    with pytest.raises(SpecError) as info:
        SMALL.with_overrides({"rack.topology": "split", "patchboard.n_associators": 60})
    assert info.value.key == "rack.topology"


def test_specs_are_frozen():
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        SMALL.rack.motor_speed = 1.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        SMALL.rack = SMALL.rack  # type: ignore[misc]


def test_infinity_only_where_it_means_something():
    import math
    assert specs.MARK_I.with_overrides({"rack.motor_speed": math.inf}).rack.motor_speed == math.inf
    assert specs.MARK_I.with_overrides({"rack.decay_time": "inf"}).rack.decay_time == math.inf
    for key in ("retina.blur", "retina.lamp_level", "timing.period", "trainer.increment", "retina.history_ratio"):
        with pytest.raises(SpecError, match="finite") as info:
            specs.MARK_I.with_overrides({key: math.inf})
        assert info.value.key == key


def test_response_units_are_bounded():
    with pytest.raises(SpecError, match="16"):
        specs.MARK_I.with_overrides({"response.n_responses": 40})


def test_describe_marks_values_a_preset_sets():
    rows = {r["key"]: r for r in specs.describe(specs.SMALL)}
    assert rows["patchboard.n_associators"]["changed"] and rows["timing.period"]["changed"]
    assert not rows["retina.gamma"]["changed"]


@pytest.mark.parametrize("overrides, key", [
    ({"patchboard.a_threshold": 11}, "patchboard.a_threshold"),          # 10 excitatory inputs at most
    ({"rack.wiper_noise": 100.0}, "rack.wiper_noise"),                   # noise outweighs any sum
])
def test_a_machine_that_could_not_depend_on_its_cards_is_refused(overrides, key):
    with pytest.raises(SpecError) as e:
        specs.MARK_I.with_overrides(overrides)
    assert e.value.key == key


# -- the value systems (issue 16) ------------------------------------------------------------

def test_value_system_defaults_and_provenance():
    tr, resp = MARK_I.trainer, MARK_I.response
    assert (tr.rule, tr.reinforcement, tr.valence, resp.discrimination, MARK_I.rack.bias) == (
        "alpha", "corrective", "bivalent", "sum", True)
    assert RackSpec.field_info("bias")["status"] == "assumed"
    for group, name, source in [(TrainerSpec, "rule", "1958"), (TrainerSpec, "reinforcement", "1960"),
                                (TrainerSpec, "reinforcement", "24 June 1960"), (TrainerSpec, "valence", "1958"),
                                (ResponseSpec, "discrimination", "1958"), (TrainerSpec, "rule", "Widrow")]:
        info = group.field_info(name)
        assert source in info["doc"] and info["status"] in STATUS_WORDS, (name, source)
    assert TrainerSpec.field_info("rule")["choices"] == ("alpha", "beta", "gamma", "lms")


@pytest.mark.parametrize("overrides, keys", [
    ({"trainer.valence": "monovalent", "trainer.rule": "gamma"}, ("trainer.valence", "trainer.rule")),
    ({"trainer.valence": "monovalent", "trainer.rule": "lms"}, ("trainer.valence", "trainer.rule")),
    ({"trainer.rule": "lms", "trainer.reinforcement": "forced"}, ("trainer.reinforcement", "trainer.rule")),
    ({"trainer.rule": "lms", "trainer.reinforcement": "spontaneous"}, ("trainer.reinforcement", "trainer.rule")),
    ({"response.discrimination": "mean", "response.code": "binary"}, ("response.discrimination", "response.code")),
    ({"trainer": {"rule": "forced"}}, ("trainer.rule",)),
])
def test_bad_value_system_combinations(overrides, keys):
    with pytest.raises(SpecError) as err:
        SMALL.with_overrides(overrides)
    assert "\n" not in str(err.value) and all(k in str(err.value) for k in keys), str(err.value)


def test_good_value_system_combinations_build():
    for over in ({"trainer.valence": "monovalent", "trainer.rule": "beta", "trainer.reinforcement": "spontaneous"},
                 {"response.discrimination": "mean", "rack.topology": "split", "rack.bias": False},
                 {"trainer.rule": "gamma", "trainer.reinforcement": "forced"}):
        spec = SMALL.with_overrides(over)
        assert all(spec.get(k) == v for k, v in over.items())


# ---------------------------------------------------------------------------------------
# the default rack and the readings (issue 24)


def test_the_default_rack_is_512_pots_one_per_a_unit_split_over_the_r_units_in_use():
    info = RackSpec.field_info("topology")
    assert MARK_I.rack.topology == "split-in-use" and info["status"] == "assumed"
    # the field says where each part stands: the count, the assignment, the binary code, 4,096
    for words in ("single-source", "assignment assumed", "binary code (assumed)", "an inference, no source"):
        assert words in info["doc"], words
    assert specs.BEST_READING == "mark1-512" and specs.PRESETS["mark1-512"].rack == MARK_I.rack


@pytest.mark.parametrize("n_units, sizes", [(1, [512]), (2, [256, 256]), (3, [170, 171, 171]),
                                             (5, [102, 102, 103, 102, 103]), (8, [64] * 8)])
def test_split_in_use_divides_the_a_units_by_floor_boundaries(n_units, sizes):
    rack = PotentiometerRack(MARK_I.rack, n_units, 513, 8)
    assert rack.mask[:, :-1].sum(axis=1).tolist() == sizes
    assert rack.mask[:, -1].all()                                       # each R-unit keeps its bias pot
    assert (rack.mask[:, :-1].sum(axis=0) == 1).all()                   # one pot per A-unit, no A-unit left out
    assert rack.n_pots == 512 + n_units


def test_two_classes_see_every_a_unit_under_every_rack_reading_but_64_a_unit():
    masks = {name: PotentiometerRack(specs.PRESETS[name].rack, 1, 513, 8).mask
             for name in ("mark1-512", "mark1-4096", "mark1-512-split-64")}
    assert masks["mark1-512"].all() and masks["mark1-4096"].all()
    assert masks["mark1-512-split-64"].sum() == 64 + 1


def test_split_in_use_needs_an_a_unit_for_each_r_unit_in_use():
    with pytest.raises(SpecError) as info:
        PotentiometerRack(MARK_I.rack, 5, 4, 8)                         # 3 A-units for 5 R-units
    assert info.value.key == "rack.topology"


def test_the_readings_differ_from_the_default_only_where_they_say():
    base = MARK_I.to_dict()
    expected = {"mark1-512": {}, "mark1-4096": {"rack.topology": "all"},
                "mark1-512-split-64": {"rack.topology": "split"}, "mark1-512-ratchet": {"rack.drive": "ratchet"},
                "mark1-512-1s": {"timing.period": 1.0}}
    for name, changes in expected.items():
        flat = {f"{g}.{k}": v for g, fields in specs.PRESETS[name].to_dict().items() if isinstance(fields, dict)
                for k, v in fields.items()}
        flat_base = {f"{g}.{k}": v for g, fields in base.items() if isinstance(fields, dict) for k, v in fields.items()}
        assert {k: v for k, v in flat.items() if flat_base[k] != v} == changes, name
    assert specs.PRESETS["ibm704"].is_ideal
