"""Generates the JSON fixtures: python3 gen_json.py (run in this folder)."""
from jmxgen import *

DOC = ('{"token":"abc/123","user":{"name":"ann","id":7,"roles":["admin","dev"]},'
       '"items":[{"id":1,"ok":true,"price":1.50},{"id":2,"ok":false,"price":20},{"id":3,"ok":true,"price":3}],'
       '"empty":null}')

write("json_extractor.jmx", plan([
    group("Json", 1, 1, [
        java("api", DOC, children=[
            jsonx("token;name;second;ids;okids;count;missing;nul;roles;user",
                  "$.token;$.user.name;$.items[*].id;$.items[*].id;$..items[?(@.ok == true)].id;$.items.length();$.nope;$.empty;$.user.roles;$.user",
                  "1;1;2;-1;-1;1;1;1;1;1",
                  "NT;NN;NS;NI;NO;NC;DEF;NULLDEF;NR;NU", concat=True),
        ]),
        debug("token=${token} name=${name} second=${second} count=${count}"),
        debug("ids=${ids_matchNr}:${ids_1},${ids_2},${ids_3} all=${ids_ALL} ok=${okids_ALL}"),
        debug("missing=${missing}/${missing_matchNr} nul=${nul}"),
        debug("roles=${roles}"),
        debug("user=${user}"),
        foreach("each", "ids", "id", [debug("id=${id}")]),
    ]),
    group("Jmes", 1, 1, [
        java("api", DOC, children=[
            jmes("oks", "items[?ok].id", "-1"),
            jmes("user", "user", "1"),
            jmes("second", "items[*].id", "2"),
            jmes("none", "nope.nothing", "1", default="NONE"),
        ]),
        debug("oks=${oks_matchNr}:${oks_1},${oks_2} second=${second} none=${none}/${none_matchNr}"),
        debug("user=${user}"),
    ]),
    group("Assert", 1, 1, [
        java("exists", DOC, children=[json_assert("$.user.name")]),
        java("missing", DOC, children=[json_assert("$.user.nope")]),
        java("value", DOC, children=[json_assert("$.user.id", "8", validate=True, regex=False)]),
        java("regex", DOC, children=[json_assert("$.token", r"abc/\d+", validate=True)]),
        java("array", DOC, children=[json_assert("$.items[*].price", "1.5", validate=True, regex=False)]),
        java("inverted", DOC, children=[json_assert("$.empty", validate=True, expect_null=True, invert=True)]),
        java("jmes-ok", DOC, children=[jmes_assert("user.name", "ann", validate=True, regex=False)]),
        java("jmes-missing", DOC, children=[jmes_assert("user.nope")]),
    ]),
]))
