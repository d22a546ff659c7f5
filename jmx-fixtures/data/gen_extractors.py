"""Generates the extractor fixtures: python3 gen_extractors.py (run in this folder)."""
from jmxgen import *

PAGE = '<a href="/item?id=11">x</a><a href="/item?id=22">y</a><a href="/item?id=33">z</a>'

write("regex_extractor.jmx", plan([
    group("Regex", 1, 1, [
        java("page", PAGE, code="201", message="Created", children=[
            regex("all", r"id=(\d+)", "$1$", "-1"),
            regex("second", r'id=(\d+)">(\w)', "$2$-$1$", "2"),
            regex("missing", r"nope(\d)", "$1$", "1", default="NOTFOUND"),
            regex("emptydef", "nope", "$0$", "1", empty_default=True),
            regex("code", r"(\d)(\d)", "$2$$1$", "1", field="code"),
            regex("msg", r"^(\w+)$", "$1$", "1", field="message"),
            regex("rnd", r"id=(\d+)", "$1$", "0"),
            regex("look", r'(?<=id=)\d+(?=">y)', "$0$", ""),
            regex("fromvar", r"(\d)$", "$1$", "1", scope="variable", variable="all_3"),
        ]),
        debug("all=${all_matchNr}:${all_1},${all_2},${all_3} g=${all_2_g1}/${all_2_g}"),
        debug("second=${second} g0=${second_g0} g=${second_g}"),
        debug("missing=${missing} empty=[${emptydef}] code=${code} msg=${msg} look=${look} var=${fromvar}"),
        debug("rnd=${rnd}"),
        foreach("each", "all", "item", [debug("item=${item}")]),
    ]),
    group("DebugPost", 1, 1, [
        java("dp", "x", children=[
            debug_post(),
            regex("child", "^(JMeter\\w+):", "$1$", "1", default="none", scope="children"),
            regex("parent", "^(JMeter\\w+):", "$1$", "1", default="none", scope="parent"),
            regex("all", "^(JMeter\\w+|x)", "$1$", "-1", scope="all"),
        ]),
        debug("child=${child} parent=${parent} all=${all_matchNr}:${all_1},${all_2}"),
    ]),
]))

# Elements and functions JMeter 2.13 lacks (Boundary Extractor, __digest, __timeShift...).
write("boundary_functions.jmx", plan([
    group("Boundary", 1, 1, [
        java("cells", "<td>a</td><td>b</td>", children=[
            boundary("b", "<td>", "</td>", "-1"),
            boundary("b2", "<td>", "</td>", "2"),
            boundary("bd", "<x>", "</x>", "1", default="D"),
        ]),
        debug("b=${b_matchNr}:${b_1}${b_2} b2=${b2} bd=${bd}"),
    ]),
    group("Functions", 1, 2, [
        java("cells", "<td>a</td><td>b</td>", children=[md5_assert("e7ba5b6e9c1d9e2b1a5a0d2c5bde6e4b")]),
        debug(r"fn=${__regexFunction(<td>(\w)</td>,$1$,ALL,+,,rf)} n=${rf_matchNr}"),
        java("abc", "abc", children=[md5_assert("900150983CD24FB0D6963F7D28E17F72")]),
        debug("b64=${__base64Encode(user:pass)} dec=${__base64Decode(dXNlcjpwYXNz)} "
              "sha=${__digest(SHA-256,abc)} it=${__iterationNum()}"),
        debug("csv=${__CSVRead(users.csv,0)}-${__CSVRead(users.csv,1)}${__CSVRead(users.csv,next)} "
              "ts=${__timeShift(dd/MM/yyyy,31/12/2020,P1D)} rd=${__RandomDate(yyyy-MM-dd,2021-01-01,2021-01-02)}"),
    ]),
]))
