"""Generates the extractor benchmark plans: python3 gen_bench.py (run in this folder)."""
import json
from jmxgen import *

items = [{"id": i, "name": f"item-{i}", "href": f"/items/{i}?token=t{i}", "price": i * 1.25} for i in range(145)]
BODY = json.dumps({"token": "abc123", "items": items}, separators=(",", ":"))
assert 10_000 <= len(BODY) <= 11_000, len(BODY)

def bench_plan(with_extractors):
    children = [
        regex("r", r'"href":"/items/(\d+)\?token=(\w+)"', "$1$-$2$", "3"),
        jsonx("j", "$.items[?(@.id == 42)].name", "1", "none"),
        boundary("b", '"token":"', '"', "1"),
        response_assert("item-144"),
    ] if with_extractors else [response_assert("item-144")]
    g = el("ThreadGroup", "ThreadGroupGui", "Bench", [
        s("ThreadGroup.num_threads", "${__P(threads,10)}"), s("ThreadGroup.ramp_time", 0),
        s("ThreadGroup.on_sample_error", "continue"),
        '<elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" testname="Loop Controller" enabled="true">'
        + s("LoopController.loops", "${__P(loops,2000)}") + b("LoopController.continue_forever", False) + '</elementProp>',
        b("ThreadGroup.scheduler", False)], [java("page", BODY, children=children)])
    return plan([g])

write("../bench/extractors_on.jmx", bench_plan(True))
write("../bench/extractors_off.jmx", bench_plan(False))
