"""Generates the XPath / CSS / HTML fixtures: python3 gen_xml_html.py (run in this folder)."""
from jmxgen import *

def xpath(ref, query, match=None, default="", fragment=False, tolerant=False, namespace=False,
          scope=None, variable=None, report_errors=False):
    props = [s("XPathExtractor.default", default), s("XPathExtractor.refname", ref),
             s("XPathExtractor.xpathQuery", query), b("XPathExtractor.validate", False),
             b("XPathExtractor.tolerant", tolerant), b("XPathExtractor.namespace", namespace),
             b("XPathExtractor.fragment", fragment)]
    if match is not None: props.append(s("XPathExtractor.matchNumber", match))
    if report_errors: props.append(b("XPathExtractor.report_errors", True))
    if scope: props.append(s("Sample.scope", scope))
    if variable: props.append(s("Scope.variable", variable))
    return el("XPathExtractor", "XPathExtractorGui", "XPath " + ref, props)

def xpath2(ref, query, match="0", default="", namespaces="", fragment=False):
    return el("XPath2Extractor", "XPath2ExtractorGui", "XPath2 " + ref, [
        s("XPathExtractor2.default", default), s("XPathExtractor2.refname", ref),
        s("XPathExtractor2.matchNumber", match), s("XPathExtractor2.xpathQuery", query),
        s("XPathExtractor2.namespaces", namespaces), b("XPathExtractor2.fragment", fragment)])

def xpath_assert(query, negate=False, tolerant=False, namespace=False):
    return el("XPathAssertion", "XPathAssertionGui", "XA " + query, [
        b("XPath.negate", negate), s("XPath.xpath", query), b("XPath.validate", False),
        b("XPath.whitespace", False), b("XPath.tolerant", tolerant), b("XPath.namespace", namespace)])

def xpath2_assert(query, negate=False, namespaces=""):
    return el("XPath2Assertion", "XPath2AssertionGui", "X2A " + query, [
        b("XPath.negate", negate), s("XPath.xpath", query), s("XPath.namespaces", namespaces)])

def css(ref, expr, attr="", match="1", default="", empty_default=False, impl=""):
    return el("HtmlExtractor", "HtmlExtractorGui", "CSS " + ref, [
        s("HtmlExtractor.refname", ref), s("HtmlExtractor.expr", expr), s("HtmlExtractor.attribute", attr),
        s("HtmlExtractor.default", default), b("HtmlExtractor.default_empty_value", empty_default),
        s("HtmlExtractor.match_number", match), s("HtmlExtractor.extractor_impl", impl)])

def html_assert(name, errors=0, warnings=0, errors_only=False, fmt=0):
    return el("HTMLAssertion", "HTMLAssertionGui", name, [
        f'<longProp name="html_assertion_error_threshold">{errors}</longProp>',
        f'<longProp name="html_assertion_warning_threshold">{warnings}</longProp>',
        s("html_assertion_doctype", "omit"), b("html_assertion_errorsonly", errors_only),
        f'<longProp name="html_assertion_format">{fmt}</longProp>', s("html_assertion_filename", "")])

CATALOG = ('<?xml version="1.0" encoding="UTF-8"?>\n<catalog xmlns:p="urn:price">'
           '<item id="a1">First</item><item id="b2"><name>Second</name></item>'
           '<item id="c3">Third &amp; last</item><p:price cur="EUR">9.5</p:price></catalog>')

PAGE = ('<html><head><title>Shop</title></head><body>\n'
        '<ul id="menu"><li><a href="/a">Alpha</a></li>\n'
        '<li class="sel"><a href="/b">Beta <b>two</b></a> <span>new</span></li>\n'
        '<li><a href="/c">Gamma</a></li></ul>\n'
        '<p class="intro">  Hello\n   <i>big</i>   world </p><br>\n'
        '<input name="token" value="t-123">\n</body></html>')

write("xpath_extractor.jmx", plan([
    group("XPath", 1, 1, [
        java("catalog", CATALOG, children=[
            xpath("ids", "//item/@id"),
            xpath("second", "//item", match="2", default="NONE"),
            xpath("first", "//item", match="1"),
            xpath("third", "//item[3]"),
            xpath("frag", "//item[2]", fragment=True),
            xpath("count", "count(//item)"),
            xpath("missing", "//nope", default="NF"),
            xpath("price", "//p:price", namespace=True),
            xpath("local", "//price"),
            xpath("cur", "//*[local-name()='price']/@cur"),
            xpath("rnd", "//item/@id", match="0"),
            xpath("fromvar", "//item/@id", scope="variable", variable="frag"),
        ]),
        debug("ids=${ids_matchNr}:${ids_1},${ids_2},${ids_3} ids=${ids}"),
        debug("second=${second} n=${second_matchNr} first=${first} third=${third}"),
        debug("frag=${frag}"),
        debug("count=${count} missing=${missing}/${missing_matchNr} price=${price} local=${local} cur=${cur}"),
        debug("rnd=${rnd} fromvar=${fromvar}"),
        java("page", PAGE, children=[
            xpath("href", "//a/@href", tolerant=True),
            xpath("strict", "//a/@href", default="BROKEN"),
        ]),
        debug("href=${href_matchNr}:${href_1},${href_3} strict=${strict}/${strict_matchNr}"),
    ]),
    group("XAssert", 1, 1, [
        java("has items", CATALOG, children=[xpath_assert("//item")]),
        java("no nope", CATALOG, children=[xpath_assert("//nope")]),
        java("negated", CATALOG, children=[xpath_assert("//item", negate=True)]),
        java("count true", CATALOG, children=[xpath_assert("count(//item) > 2")]),
        java("count false", CATALOG, children=[xpath_assert("count(//item) > 5")]),
        java("not xml", "just text", children=[xpath_assert("/")]),
        java("tolerant html", PAGE, children=[xpath_assert("//li[@class='sel']", tolerant=True)]),
    ]),
]))

write("css_extractor.jmx", plan([
    group("CSS", 1, 1, [
        java("page", PAGE, children=[
            css("links", "ul#menu > li > a", attr="href", match="-1"),
            css("second", "#menu li:eq(1) a"),
            css("contains", "a:contains(GAMMA)", attr="href"),
            css("has", "li:has(span) > a", attr="href"),
            css("intro", "p.intro"),
            css("gt", "li:gt(0) > a", match="-1"),
            css("starts", "a[href^=/b]"),
            css("token", "input[name=token]", attr="value"),
            css("missing", "a.none", default="NF"),
            css("emptydef", "a.none", empty_default=True),
            css("rnd", "li > a", attr="href", match="0"),
            css("jodd", "li.sel > a", impl="JODD"),
        ]),
        debug("links=${links_matchNr}:${links_1},${links_2},${links_3}"),
        debug("second=${second} contains=${contains} has=${has}"),
        debug("intro=${intro}"),
        debug("gt=${gt_matchNr}:${gt_1}|${gt_2} starts=${starts} token=${token}"),
        debug("missing=${missing} emptydef=[${emptydef}] jodd=${jodd}"),
        debug("rnd=${rnd}"),
    ]),
    group("HTML", 1, 1, [
        java("clean", '<!DOCTYPE html><html><head><title>t</title></head><body><p>x</p></body></html>',
             children=[html_assert("clean page")]),
        java("unknown tag", '<!DOCTYPE html><html><head><title>t</title></head><body><blah>x</blah></body></html>',
             children=[html_assert("errors only", errors_only=True)]),
        java("lenient", '<!DOCTYPE html><html><head><title>t</title></head><body><blah>x</blah></body></html>',
             children=[html_assert("threshold", errors=1, errors_only=True)]),
    ]),
]))

SOAP = ('<?xml version="1.0"?><s:Envelope xmlns:s="urn:soap" xmlns:t="urn:types"><s:Body>'
        '<t:Folder Id="f1"><t:Name>Inbox</t:Name></t:Folder><t:Folder Id="f2"><t:Name>Sent</t:Name></t:Folder>'
        '<t:Code>NoError</t:Code></s:Body></s:Envelope>')

# Elements JMeter 2.13 lacks (XPath2 Extractor and Assertion), a function, and plan errors.
write("xpath2.jmx", plan([
    group("XPath2", 1, 1, [
        java("soap", SOAP, children=[
            xpath2("ids", "//t:Folder/@Id", match="-1", namespaces="t=urn:types"),
            xpath2("name", "//t:Folder[2]/t:Name", match="1", namespaces="t=urn:types\ns=urn:soap"),
            xpath2("upper", "//t:Name/upper-case(.)", match="-1", namespaces="t=urn:types"),
            xpath2("joined", "string-join(//*:Name, ',')", match="1"),
            xpath2("frag", "//t:Folder[1]", match="1", namespaces="t=urn:types", fragment=True),
            xpath2("missing", "//t:Nope", default="NF", namespaces="t=urn:types"),
            xpath2_assert("//t:Code[text()='NoError']", namespaces="t=urn:types"),
            xpath2_assert("count(//t:Folder) eq 3", namespaces="t=urn:types"),
        ]),
        debug("ids=${ids_matchNr}:${ids_1},${ids_2} name=${name} upper=${upper_1}${upper_2}"),
        debug("joined=${joined} missing=${missing}/${missing_matchNr}"),
        debug("frag=${frag}"),
        debug("file=${__XPath(xpath_users.xml,//user/@name)},${__XPath(xpath_users.xml,//user/@name)},${__XPath(xpath_users.xml,//user/@name)}"),
    ]),
]))

write("xpath_invalid.jmx", plan([
    group("Bad", 1, 1, [
        java("page", PAGE, children=[
            xpath("bad", "//a[@href"),
            css("badcss", "a:nope(1)"),
            xpath2("bad2", "for $x in //a return $x", match="1"),
        ]),
    ]),
]))
