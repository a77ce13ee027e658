"""A scenario as data: its file (scripts/bench/scenarios/NAME.json, described in harness/scenario.py), its settings
read from the environment, and the evaluation of its values. Standard library only."""
import json
import os
import string

SCENARIOS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenarios")


def load_scenario(name):
    path = name if name.endswith(".json") else os.path.join(SCENARIOS, name + ".json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def typed(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def settings(scenario, environ):
    """The scenario's settings, each from BENCH_<NAME> when set (empty: the default, except for free-text ones
    whose default is a string: an empty BENCH_NODE_ARGS means no node arguments). "env_names": {setting: variable}
    names another variable for a setting (BENCH_CLUSTER_PORT for "port"). A default "=expression" is evaluated over
    the settings before it and nproc (the machine's CPUs), and its value's type decides as above."""
    out = {}
    names = scenario.get("env_names", {})
    for key, default in scenario["settings"].items():
        if isinstance(default, str) and default.startswith("="):
            default = Values(out, {}, {"nproc": os.cpu_count() or 1})(default)
        v = environ.get(names.get(key, "BENCH_" + key.upper()))
        if v is None or (v == "" and not isinstance(default, str)):
            out[key] = default
        else:
            out[key] = typed(v) if not isinstance(default, str) else v
    return out


class Values:
    """Evaluates a scenario's values against its settings and the run's names."""

    def __init__(self, conf, names, functions=None):
        self.conf, self.names, self.functions = conf, names, functions or {}

    def __call__(self, v):
        if isinstance(v, list):
            return [self(x) for x in v]
        if isinstance(v, dict):
            return {k: self(x) for k, x in v.items()}
        if not isinstance(v, str):
            return v
        if v.startswith("="):
            return eval(v[1:], {"__builtins__": {}}, {**self.functions, **self.conf})  # the repository's own data files
        return string.Template(v).safe_substitute({**{k: str(x) for k, x in self.conf.items()}, **self.names})
