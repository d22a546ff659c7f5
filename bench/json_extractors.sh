#!/usr/bin/env bash
# What JSON Extractors cost per sample when several read the same response. A jp@gc
# Dummy Sampler returns a 10 KiB JSON document (a token and 145 items of four fields);
# below it sit 0, 1 or 5 JSON Extractors, in two sets:
#   look-ups  1: `$.items[144].price`
#             5: that one, plus `$.token`, `$.items[10].href`, `$.items[100].name` and
#                `$.items[50].id`;
#   filters   1: `$.items[?(@.id == 42)].name`
#             5: that one, plus `$.token`, `$.items[144].price`, `$.items[10].href` and
#                `$.items[?(@.price > 100)].id` (match 1).
# The response is indexed once per sample whatever the number of extractors, so five
# look-ups should cost about one index plus five look-ups: at most 1.5x one extractor.
# A filter is not a look-up: it reads every item it filters, so two filters cost about
# twice one; that set shows what the shared index saves there.
#
# Measured with callgrind (instructions, repeatable on a busy machine): each plan runs
# with 1 user for LOOPS and 4*LOOPS iterations, and the difference is divided by the
# extra samples, so start-up cancels out. "extraction" is a plan's figure minus the
# plan without extractors.
#
# needs: apt-get install -y valgrind
# usage: bench/json_extractors.sh      (LOOPS=200; JMXR=path/to/jmxr measures that binary
#        instead of building this checkout, e.g. an older build for before/after figures)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib/items_json.sh"
LOOPS="${LOOPS:-200}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if [ -z "${JMXR:-}" ]; then
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
  JMXR="$ROOT/target/release/jmxr"
fi

write_items_json "$WORK/items.json"
echo "response: $(wc -c < "$WORK/items.json") bytes of JSON"

extractor() { # name path match
  cat <<XML
<JSONPostProcessor guiclass="JSONPostProcessorGui" testclass="JSONPostProcessor" testname="JSON $1" enabled="true">
<stringProp name="JSONPostProcessor.referenceNames">$1</stringProp>
<stringProp name="JSONPostProcessor.jsonPathExprs">$2</stringProp>
<stringProp name="JSONPostProcessor.match_numbers">$3</stringProp>
<stringProp name="JSONPostProcessor.defaultValues">none</stringProp>
</JSONPostProcessor>
<hashTree/>
XML
}

plan() { # set count [check] -> plan text; with "check", a second sampler's label shows
  # what the extractors found
  local body
  body=$(sed 's/&/\&amp;/g; s/</\&lt;/g; s/"/\&quot;/g' "$WORK/items.json")
  cat <<XML
<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3"><hashTree>
<TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="JSON extractors" enabled="true"/>
<hashTree>
<ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="Users" enabled="true">
<stringProp name="ThreadGroup.num_threads">1</stringProp>
<stringProp name="ThreadGroup.ramp_time">0</stringProp>
<elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" enabled="true">
<stringProp name="LoopController.loops">\${__P(loops,1)}</stringProp>
</elementProp>
</ThreadGroup>
<hashTree>
<kg.apc.jmeter.samplers.DummySampler guiclass="kg.apc.jmeter.samplers.DummySamplerGui" testclass="kg.apc.jmeter.samplers.DummySampler" testname="items" enabled="true">
<boolProp name="SUCCESFULL">true</boolProp>
<stringProp name="RESPONSE_CODE">200</stringProp>
<stringProp name="RESPONSE_MESSAGE">OK</stringProp>
<stringProp name="RESPONSE_DATA">$body</stringProp>
<stringProp name="RESPONSE_TIME">0</stringProp>
</kg.apc.jmeter.samplers.DummySampler>
<hashTree>
XML
  local found
  case "$1" in
    lookups)
      [ "$2" -ge 1 ] && extractor a '$.items[144].price' 1
      [ "$2" -ge 5 ] && extractor b '$.token' 1 && extractor c '$.items[10].href' 1 \
        && extractor d '$.items[100].name' 1 && extractor e '$.items[50].id' 1
      ;;
    filters)
      [ "$2" -ge 1 ] && extractor a '$.items[?(@.id == 42)].name' 1
      [ "$2" -ge 5 ] && extractor b '$.token' 1 && extractor c '$.items[144].price' 1 \
        && extractor d '$.items[10].href' 1 && extractor e '$.items[?(@.price > 100)].id' 1
      ;;
  esac
  echo "</hashTree>"
  if [ "${3:-}" = check ]; then
    cat <<XML
<kg.apc.jmeter.samplers.DummySampler guiclass="kg.apc.jmeter.samplers.DummySamplerGui" testclass="kg.apc.jmeter.samplers.DummySampler" testname="found \${a} \${b} \${c} \${d} \${e}" enabled="true">
<boolProp name="SUCCESFULL">true</boolProp>
<stringProp name="RESPONSE_TIME">0</stringProp>
</kg.apc.jmeter.samplers.DummySampler>
<hashTree/>
XML
  fi
  echo "</hashTree></hashTree></hashTree></jmeterTestPlan>"
}

instructions() { # plan loops -> total instructions of the run
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
    "$JMXR" -n -t "$1" -l "$WORK/cg.jtl" -f -Jloops="$2" \
    > /dev/null 2>"$WORK/cg.err" || { cat "$WORK/cg.err" >&2; exit 1; }
  grep -m1 '^summary:' "$WORK/cg.out" | awk '{print $2}'
}

per_sample() { # plan -> instructions per sample
  local low high
  low=$(instructions "$1" "$LOOPS")
  high=$(instructions "$1" $((4 * LOOPS)))
  echo $(((high - low) / (3 * LOOPS)))
}

check() { # set expected-label
  plan "$1" 5 check > "$WORK/check.jmx"
  "$JMXR" -n -t "$WORK/check.jmx" -l "$WORK/check.jtl" -f -Jloops=1 > /dev/null
  local found
  found=$(grep -o 'found [^,]*' "$WORK/check.jtl")
  [ "$found" = "$2" ] || { echo "$1: the extractors found \"$found\", not \"$2\"" >&2; exit 1; }
  echo "$1: $found"
}
check lookups "found 180.0 abc123 /items/10?token=t10 item-100 50"
check filters "found item-42 abc123 180.0 /items/10?token=t10 81"

plan lookups 0 > "$WORK/none.jmx"
base=$(per_sample "$WORK/none.jmx")
echo "instructions per sample without extractors: $base"
for set in lookups filters; do
  plan "$set" 1 > "$WORK/one.jmx"
  plan "$set" 5 > "$WORK/five.jmx"
  one=$(per_sample "$WORK/one.jmx")
  five=$(per_sample "$WORK/five.jmx")
  echo "$set: 1 extractor $one, 5 extractors $five per sample;" \
    "extraction alone $((one - base)) and $((five - base))," \
    "5 vs 1: $(echo "scale=2; ($five - $base) / ($one - $base)" | bc)x"
done
echo "(bound for the look-ups: 1.5x)"
