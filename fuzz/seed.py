#!/usr/bin/env python3
"""Fills fuzz/corpus/<target>/ with small seed inputs: plans, CSV files, scripts and
expressions taken from jmx-fixtures/, plus hand-written responses and queries.
Run from anywhere; existing corpus files are kept. See docs/fuzzing.md."""
import gzip, hashlib, pathlib, xml.etree.ElementTree as ET, zlib

FUZZ = pathlib.Path(__file__).resolve().parent
FIXTURES = FUZZ.parent / "jmx-fixtures"


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    folder = FUZZ / "corpus" / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


plans = sorted(p for p in FIXTURES.rglob("*.jmx") if p.stat().st_size < 16_000)
scripts, expressions = set(), set()
LANGUAGES = {"groovy": 0, "java": 1, "beanshell": 2, "javascript": 3, "jexl": 4}
for plan in plans:
    put("jmx_plan", plan.read_bytes())
    try:
        root = ET.parse(plan).getroot()
    except ET.ParseError:
        continue
    for element in root.iter():
        props = {p.get("name"): (p.text or "") for p in element if p.tag == "stringProp"}
        for text in props.values():
            if "${" in text and len(text) < 400:
                expressions.add(text)
        script = props.get("script") or props.get("BeanShellSampler.query")
        if script:
            language = props.get("scriptLanguage", "beanshell").lower()
            scripts.add((LANGUAGES.get(language, 0), script))

for text in sorted(expressions):
    put("expressions", b"\x00" + text.encode())
for choice, text in [
    (1, '"${x}" == "1" && ${n} > 2'),
    (1, "${__jexl3(${i} < 10)}"),
    (1, "!(1 + 2 * 3 >= 7) || 'a'.length == 1"),
    (2, "yyyy-MM-dd'T'HH:mm:ss.SSSZ\n2024-01-02T03:04:05.678+0100"),
    (2, "EEE, d MMM yyyy HH:mm:ss z\nTue, 2 Jan 2024 03:04:05 UTC"),
    (2, "uuuu-MM-dd[ HH:mm] VV xxx nnn\n"),
    (2, "''hh 'o''clock' a, zzzz"),
    (3, "#,##0.00"),
    (3, "000000"),
    (3, "'#'#;(#)"),
]:
    put("expressions", bytes([choice]) + text.encode())

for choice, text in sorted(scripts):
    put("script_translation", bytes([choice]) + text.encode())
for choice, text in [
    (0, 'def x = vars.get("a") as int\nfor (i in 0..<3) { log.info("${x} $i") }\n'),
    (1, "int i = 0; for (int j = 0; j < 10; j++) { i += j; } vars.put(\"i\", String.valueOf(i));"),
    (2, 'import java.util.*; String s = "a"; try { s += 1; } catch (Exception e) { }'),
    (3, "var a = [1,2,3].map(function (x) { return x * 2; }); vars.put('a', JSON.stringify(a));"),
    (4, "vars.get('a') == 'b' ? 1 : 2"),
]:
    put("script_translation", bytes([choice]) + text.encode())

for csv in sorted(FIXTURES.rglob("*.csv")):
    if csv.stat().st_size < 8_000:
        for mode in range(4):
            put("data_files", bytes([mode]) + csv.read_bytes())
JTL_HEADER = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,"
              "success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,"
              "IdleTime,Connect\n")
put("data_files", b"\x04ms\n" + (JTL_HEADER
    + '1700000000000,12,Home,200,OK,TG 1-1,text,true,,100,50,1,1,http://x/,10,0,2\n'
    + '1700000000012,3,"a, b",500,"say ""no""",TG 1-1,text,false,"x\ny",1,1,1,1,null,1,0,0\n').encode())
put("data_files", b"\x04yyyy/MM/dd HH:mm:ss.SSS\n" + (JTL_HEADER
    + "2024/01/02 03:04:05.678,12,Home,200,OK,TG 1-1,text,true,,100,50,1,1,,10,0,2\n").encode())
put("data_files", b"\x04\n1700000000000|5|x|200|OK|t|text|true||1|1|1|1|u|1|0|0\n")
XML_SAMPLE = ('<httpSample t="12" it="0" lt="10" ct="2" ts="1700000000000" s="false" lb="a &amp; b" '
              'rc="500" rm="line&#xa;two" tn="TG 1-1" dt="text" by="100" sby="50" ng="1" na="1" var="7">\n'
              '  <assertionResult>\n    <name>R</name>\n    <failure>true</failure>\n    <error>false</error>\n'
              '    <failureMessage>no &lt;ok&gt;</failureMessage>\n  </assertionResult>\n'
              '  <sample t="1" lt="0" ts="1700000000001" s="true" lb="sub" rc="200" rm="OK" tn="TG 1-1" '
              'by="1" ng="1" na="1"/>\n'
              '  <responseData class="java.lang.String">&lt;html&gt;</responseData>\n  <null/>\n</httpSample>\n')
put("data_files", b"\x04\n" + ('<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n'
    + XML_SAMPLE + XML_SAMPLE + '\n</testResults>\n').encode())

body = b'{"a":[1,2,3],"b":"hello"}' * 4
RESPONSES = [
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Length: 5\r\n\r\nhello",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n c\r\n\r\n5;ext=1\r\nhello\r\n0\r\nTrailer: x\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(gzip.compress(body)) + gzip.compress(body),
    b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n\r\n" + zlib.compress(body),
    b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 10\r\n\r\n\x1b\x31\x00\x00\xa4\xb0\xb2\xea\x81\x47",
    b"HTTP/1.0 302 Found\r\nLocation: /next\r\nConnection: keep-alive\r\n\r\n",
    b"HTTP/1.1 204 No Content\r\n\r\n",
    b"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
]
for response in RESPONSES:
    for choice in (0, 1, 2, 6):
        put("http_response", bytes([choice]) + response)

for choice, text in [
    (0, "$.a[*].b"), (0, "$..[?(@.b > 1 && @.c == null)]"), (0, "$.e.f.i[-1:]"),
    (0, "$['a','e'][0:2].length()"), (0, "$.a[?(@.c =~ /x.*/i)].b"),
    (1, "a[?b > `1`].c | [0]"), (1, "e.f.{g: g, n: length(i)}"), (1, "sort_by(a, &b)[].c"),
    (1, "a[*].d[?@ == `true`] || `[]`"),
    (2, "//a[@id='1']/b[last()]"), (2, "count(//b) + sum(//b) div 2"),
    (2, "/root/p:c/text() | //comment() | //processing-instruction()"),
    (2, "substring-before(concat(name(/*), '-x'), '-')"),
    (3, "for $x in //b return $x * 2"), (3, "string-join(//b/string(), ',')"),
    (3, "if (//a/@id = '1') then matches(//d, '^<r') else ()"),
    (4, "div#main > p:nth-child(2)"), (4, "li.odd ~ li, a[href^=/]"),
    (4, "p:contains(one):not([lang=fr]) a"), (4, "input[name=n][value~=v]:eq(0)"),
    (5, '{"a":[{"b":[1,{"c":"\\u00e9"}]}],"x":1e400,"y":-0.0}'),
    (6, '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e "x">]><r xmlns="urn:a"><a id="1">&e;</a></r>'),
    (7, "<html><body><div><a href=x>y</a><p>x<table><tr><td>1</table></body>"),
]:
    put("queries", bytes([choice]) + text.encode())
print({t.name: len(list(t.iterdir())) for t in sorted((FUZZ / "corpus").iterdir())})
