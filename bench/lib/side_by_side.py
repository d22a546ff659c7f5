#!/usr/bin/env python3
"""Helpers of bench/side_by_side.sh (see there for the whole procedure).

  side_by_side.py cap PLAN OUT.jmx       a copy of PLAN small enough to compare
  side_by_side.py targets OUT.jmx        the host names and ports the plan's HTTP samplers
                                          name, one line each: "hosts h1 h2 ..." / "ports 80 ..."
  side_by_side.py compare DIR            compares DIR/{jmxr,jmeter}.csv (rows per thread) and
                                          DIR/{jmxr,jmeter}.requests.jsonl (what the server got)

cap: thread groups get at most THREADS users (env, default 2) and LOOPS iterations (env,
default 2; endless loops and schedulers become LOOPS iterations), no ramp-up, no
scheduler; constant and random timers and Flow Control pauses are cut to MAX_DELAY_MS
(env, default 200), Runtime Controllers to 1 s; Constant Throughput and Synchronizing
Timers are disabled (they would pace or block); listeners are removed (results come from -l; 2.13 cannot read the save
settings of newer listeners, and plugin listeners are missing there); a Cookie Manager's "standard" policies (5.x) become "default", which 2.13
knows (its HttpClient 4 handler fails every sample on "standard").

compare: rows are compared per thread as the sequence of (label, responseCode, success);
a thread whose rows are the same but in another order (a Random Order Controller) is
counted apart; requests as multisets of (request line, header lines, body) with these
normalisations:
User-Agent dropped (deliberate difference), header order ignored (2.13 puts a form's
Content-Type before its Content-Length), a form's "; charset=UTF-8" dropped (5.6.3 adds it,
2.13 does not), multipart boundaries masked. A pair that differs only in long digit runs,
UUIDs, hex tokens or other numbers is counted apart, as "differs by random or time values"
(two such requests are shown side by side for a look).
"""
import base64
import collections
import csv
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

THREADS = int(os.environ.get("THREADS", "2"))
LOOPS = int(os.environ.get("LOOPS", "2"))
MAX_DELAY_MS = int(os.environ.get("MAX_DELAY_MS", "200"))
SHOWN = int(os.environ.get("SHOWN", "6"))

THREAD_GROUPS = {"ThreadGroup", "SetupThreadGroup", "PostThreadGroup"}
DISABLED = {"ConstantThroughputTimer", "SyncTimer"}
DELAYS = {
    "ConstantTimer": ["ConstantTimer.delay"],
    "UniformRandomTimer": ["ConstantTimer.delay", "RandomTimer.range"],
    "GaussianRandomTimer": ["ConstantTimer.delay", "RandomTimer.range"],
    "PoissonRandomTimer": ["ConstantTimer.delay", "RandomTimer.range"],
    "TestAction": ["ActionProcessor.duration"],
}


def prop(element, name):
    for child in element:
        if child.get("name") == name:
            return child
    return None


def set_text(element, name, value, tag="stringProp"):
    child = prop(element, name)
    if child is None:
        child = ET.SubElement(element, tag, {"name": name})
    # A number property may not be empty.
    child.text = value if value or child.tag == "stringProp" else "0"


def capped_number(text, limit, endless_means_limit=True):
    try:
        value = int(float((text or "").strip()))
    except ValueError:
        return str(limit)
    if value < 0:
        return str(limit) if endless_means_limit else str(value)
    return str(min(value, limit))


LISTENER = re.compile(r"(ResultCollector|Collector|Visualizer|BackendListener)$")


def remove_listeners(tree):
    """Removes listener elements and the hashTree that follows each."""
    for parent in tree.iter("hashTree"):
        children = list(parent)
        for i, child in enumerate(children):
            if LISTENER.search(child.tag) or LISTENER.search(child.get("testclass", "")):
                parent.remove(child)
                if i + 1 < len(children) and children[i + 1].tag == "hashTree":
                    parent.remove(children[i + 1])


def cap(plan, out):
    tree = ET.parse(plan)
    remove_listeners(tree)
    for element in tree.iter():
        tag = element.tag
        if tag in THREAD_GROUPS:
            set_text(element, "ThreadGroup.num_threads",
                     capped_number(getattr(prop(element, "ThreadGroup.num_threads"), "text", ""), THREADS))
            set_text(element, "ThreadGroup.ramp_time", "0")
            set_text(element, "ThreadGroup.scheduler", "false", "boolProp")
            set_text(element, "ThreadGroup.duration", "")
            set_text(element, "ThreadGroup.delay", "")
            main = prop(element, "ThreadGroup.main_controller")
            if main is not None:
                set_text(main, "LoopController.continue_forever", "false", "boolProp")
                set_text(main, "LoopController.loops",
                         capped_number(getattr(prop(main, "LoopController.loops"), "text", ""), LOOPS))
        elif tag in DISABLED:
            element.set("enabled", "false")
        elif tag in DELAYS:
            for name in DELAYS[tag]:
                child = prop(element, name)
                if child is not None and child.text and child.text.strip().lstrip("-").isdigit():
                    child.text = str(min(int(child.text.strip()), MAX_DELAY_MS))
        elif tag == "RunTime":
            set_text(element, "RunTime.seconds", "1")
        elif tag == "CookieManager":
            policy = prop(element, "CookieManager.policy")
            if policy is not None and (policy.text or "").startswith("standard"):
                policy.text = "default"
    tree.write(out, encoding="UTF-8", xml_declaration=True)


# --- targets -------------------------------------------------------------------------

URL = re.compile(r"\b(https?)://([A-Za-z0-9.-]+)(?::(\d+))?")
HOST = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$")


def variables(tree):
    """User Defined Variables and Arguments elements, name -> value (first wins)."""
    found = {}
    for element in tree.iter("elementProp"):
        if element.get("elementType") == "Argument":
            name = getattr(prop(element, "Argument.name"), "text", None)
            value = getattr(prop(element, "Argument.value"), "text", None)
            if name and value is not None and name not in found:
                found[name] = value
    return found


def resolve(text, found, depth=0):
    """`text` with ${var} from the plan's variables and __P/__property defaults filled in."""
    if text is None or depth > 5:
        return text
    def function(match):
        args = [a.strip() for a in match.group(2).split(",")]
        if match.group(1) == "__P":
            return args[1] if len(args) > 1 else "1"
        return args[2] if len(args) > 2 else args[0]
    text = re.sub(r"\$\{(__P|__property)\(([^()]*)\)\}", function, text)
    text = re.sub(r"\$\{([A-Za-z0-9_.-]+)\}", lambda m: found.get(m.group(1), m.group(0)), text)
    return resolve(text, found, depth + 1) if "${" in text and depth < 5 else text


def targets(plan):
    tree = ET.parse(plan)
    found = variables(tree)
    hosts, ports = set(), {80, 443}
    for element in tree.iter():
        for child in element:
            text = child.text or ""
            for match in URL.finditer(resolve(text, found) or ""):
                hosts.add(match.group(2))
                if match.group(3):
                    ports.add(int(match.group(3)))
        domain = resolve(getattr(prop(element, "HTTPSampler.domain"), "text", None), found)
        if domain and HOST.match(domain.strip()):
            hosts.add(domain.strip())
        port = resolve(getattr(prop(element, "HTTPSampler.port"), "text", None), found)
        if port and port.strip().isdigit() and 0 < int(port.strip()) < 65536:
            ports.add(int(port.strip()))
    hosts = sorted(h for h in hosts if HOST.match(h) and not re.match(r"^[0-9.]+$", h))
    print("hosts " + " ".join(hosts))
    print("ports " + " ".join(str(p) for p in sorted(ports)))


# --- compare -------------------------------------------------------------------------

RANDOM = [
    re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    re.compile(r"\b[0-9a-fA-F]{16,}\b"),
    re.compile(r"\d+"),
]


def rows(path):
    if not os.path.exists(path):
        return {}
    per_thread = collections.OrderedDict()
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.DictReader(f):
            key = tuple(row.get(name) or "" for name in ("label", "responseCode", "success"))
            per_thread.setdefault(row.get("threadName") or "", []).append(key)
    return per_thread


def normalise(record):
    head = record["head"].split("\r\n")
    line, headers = head[0], [h for h in head[1:] if h]
    body = base64.b64decode(record["body_b64"])
    boundary = None
    kept = []
    for header in headers:
        name, _, value = header.partition(":")
        name, value = name.strip(), value.strip()
        if name.lower() == "user-agent":
            continue
        if name.lower() == "content-type":
            value = value.replace("application/x-www-form-urlencoded; charset=UTF-8",
                                  "application/x-www-form-urlencoded")
            match = re.search(r"boundary=([^;\s]+)", value)
            if match:
                boundary = match.group(1)
                value = value.replace(boundary, "BOUNDARY")
        kept.append(f"{name.lower()}: {value}")
    text = body.decode("utf-8", errors="replace")
    if boundary:
        text = text.replace(boundary, "BOUNDARY")
    return (line, tuple(sorted(kept)), text)


def masked(request):
    def mask(text):
        for pattern in RANDOM:
            text = pattern.sub("#", text)
        return text
    line, headers, body = request
    return (mask(line), tuple(mask(h) for h in headers), mask(body))


def requests(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [normalise(json.loads(line)) for line in f if line.strip()]


def show(request):
    line, headers, body = request
    text = f"      {line}\n" + "".join(f"        {h}\n" for h in headers)
    if body:
        text += f"        body: {body[:300]!r}\n"
    return text


def compare(folder):
    a = rows(os.path.join(folder, "jmxr.csv"))
    b = rows(os.path.join(folder, "jmeter.csv"))
    same_threads, reordered, differing = 0, 0, []
    for thread in sorted(set(a) | set(b)):
        if a.get(thread, []) == b.get(thread, []):
            same_threads += 1
        elif sorted(a.get(thread, [])) == sorted(b.get(thread, [])):
            reordered += 1
        else:
            differing.append(thread)
    total_a = sum(len(v) for v in a.values())
    total_b = sum(len(v) for v in b.values())
    print(f"rows: jmxr {total_a}, JMeter 2.13 {total_b}; threads with the same rows: "
          f"{same_threads}, the same rows in another order: {reordered}, "
          f"differing: {len(differing)}")
    for thread in differing[:SHOWN]:
        x, y = a.get(thread, []), b.get(thread, [])
        print(f"  thread {thread!r}: jmxr {len(x)} rows, JMeter {len(y)} rows")
        for i in range(max(len(x), len(y))):
            left = x[i] if i < len(x) else None
            right = y[i] if i < len(y) else None
            if left != right:
                print(f"    row {i + 1}: jmxr {left}")
                print(f"    {' ' * len(str(i + 1))}      JMeter {right}")
                break
    ra = collections.Counter(requests(os.path.join(folder, "jmxr.requests.jsonl")))
    rb = collections.Counter(requests(os.path.join(folder, "jmeter.requests.jsonl")))
    only_a, only_b = ra - rb, rb - ra
    random_a = collections.Counter(masked(r) for r in only_a.elements())
    random_b = collections.Counter(masked(r) for r in only_b.elements())
    by_random = sum((random_a & random_b).values())
    print(f"requests: jmxr {sum(ra.values())}, JMeter 2.13 {sum(rb.values())}; same: "
          f"{sum((ra & rb).values())}; differ by random or time values: {by_random}; "
          f"only jmxr: {sum(only_a.values()) - by_random}; only JMeter: {sum(only_b.values()) - by_random}")
    if by_random:
        pairs = [(x, y) for x in only_a.elements() for y in only_b.elements() if masked(x) == masked(y)]
        x, y = pairs[0]
        print("  an example of a pair that differs by random or time values:")
        print("    jmxr:\n" + show(x), end="")
        print("    JMeter 2.13:\n" + show(y), end="")
    for title, only, other in (("only jmxr", only_a, random_b), ("only JMeter 2.13", only_b, random_a)):
        shown = 0
        for request in only.elements():
            if masked(request) in other:
                continue
            if shown == 0:
                print(f"  {title}:")
            if shown < SHOWN:
                print(show(request), end="")
            shown += 1
        if shown > SHOWN:
            print(f"    ... {shown - SHOWN} more")
    random_only = by_random == sum(only_a.values()) == sum(only_b.values())
    if not differing and not reordered and not only_a and not only_b:
        verdict = "same"
    elif not differing and random_only:
        verdict = "same but for random order or values"
    else:
        verdict = "different"
    print(f"verdict: {verdict}")


def main():
    command = sys.argv[1]
    if command == "cap":
        cap(sys.argv[2], sys.argv[3])
    elif command == "targets":
        targets(sys.argv[2])
    elif command == "compare":
        compare(sys.argv[2])
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
