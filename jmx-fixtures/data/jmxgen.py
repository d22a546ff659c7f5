"""Writes the jmx-fixtures/data plans (kept here so they can be regenerated)."""
from xml.sax.saxutils import escape, quoteattr
import os, sys

def prop(kind, name, value):
    return f'<{kind}Prop name="{name}">{escape(str(value))}</{kind}Prop>'

def s(name, value): return prop("string", name, value)
def b(name, value): return prop("bool", name, "true" if value else "false")

def el(tag, gui, name, props, children=None):
    body = "\n".join(props)
    head = f'<{tag} guiclass="{gui}" testclass="{tag}" testname={quoteattr(name)} enabled="true">\n{body}\n</{tag}>'
    kids = "\n".join(children or [])
    return f"{head}\n<hashTree>\n{kids}\n</hashTree>"

def plan(groups, name="Test Plan"):
    tp = el("TestPlan", "TestPlanGui", name, [
        b("TestPlan.functional_mode", False), b("TestPlan.serialize_threadgroups", True),
        '<elementProp name="TestPlan.user_defined_variables" elementType="Arguments" guiclass="ArgumentsPanel" testclass="Arguments" testname="User Defined Variables" enabled="true"><collectionProp name="Arguments.arguments"/></elementProp>'],
        groups)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">\n<hashTree>\n{tp}\n</hashTree>\n</jmeterTestPlan>\n'

def group(name, threads, loops, children):
    return el("ThreadGroup", "ThreadGroupGui", name, [
        s("ThreadGroup.num_threads", threads), s("ThreadGroup.ramp_time", 0),
        s("ThreadGroup.on_sample_error", "continue"),
        f'<elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" testname="Loop Controller" enabled="true">{s("LoopController.loops", loops)}{b("LoopController.continue_forever", False)}</elementProp>',
        b("ThreadGroup.scheduler", False)], children)

def loop(name, loops, children):
    return el("LoopController", "LoopControlPanel", name, [s("LoopController.loops", loops), b("LoopController.continue_forever", True)], children)

def debug(label, children=None):
    return el("DebugSampler", "TestBeanGUI", label, [b("displayJMeterProperties", False), b("displayJMeterVariables", True), b("displaySystemProperties", False)], children)

def csv(filename, names="", delimiter=",", quoted=False, recycle=True, stop=False, share="shareMode.all", ignore_first=False, encoding=""):
    return el("CSVDataSet", "TestBeanGUI", "CSV " + filename, [
        s("filename", filename), s("fileEncoding", encoding), s("variableNames", names),
        b("ignoreFirstLine", ignore_first), s("delimiter", delimiter), b("quotedData", quoted),
        b("recycle", recycle), b("stopThread", stop), s("shareMode", share)])

def java(label, data, code="200", message="OK", children=None):
    args = {"Sleep_Time": "0", "Sleep_Mask": "0", "ResponseCode": code, "ResponseMessage": message,
            "Status": "OK", "ResultData": data}
    rows = "".join(f'<elementProp name="{k}" elementType="Argument">{s("Argument.name", k)}{s("Argument.value", v)}{s("Argument.metadata", "=")}</elementProp>' for k, v in args.items())
    return el("JavaSampler", "JavaTestSamplerGui", label, [
        f'<elementProp name="arguments" elementType="Arguments" guiclass="ArgumentsPanel" testclass="Arguments" enabled="true"><collectionProp name="Arguments.arguments">{rows}</collectionProp></elementProp>',
        s("classname", "org.apache.jmeter.protocol.java.test.JavaTest")], children)

def regex(ref, regex_, template, match, default="", field="false", empty_default=False, scope=None, variable=None):
    props = [s("RegexExtractor.useHeaders", field), s("RegexExtractor.refname", ref), s("RegexExtractor.regex", regex_),
             s("RegexExtractor.template", template), s("RegexExtractor.default", default),
             b("RegexExtractor.default_empty_value", empty_default), s("RegexExtractor.match_number", match)]
    if scope: props.append(s("Sample.scope", scope))
    if variable: props.append(s("Scope.variable", variable))
    return el("RegexExtractor", "RegexExtractorGui", "Regex " + ref, props)

def boundary(ref, left, right, match, default="", field="false"):
    return el("BoundaryExtractor", "BoundaryExtractorGui", "Boundary " + ref, [
        s("BoundaryExtractor.useHeaders", field), s("BoundaryExtractor.refname", ref),
        s("BoundaryExtractor.lboundary", left), s("BoundaryExtractor.rboundary", right),
        s("BoundaryExtractor.default", default), b("BoundaryExtractor.default_empty_value", False),
        s("BoundaryExtractor.match_number", match)])

def jsonx(names, exprs, matches, defaults, concat=False):
    return el("JSONPostProcessor", "JSONPostProcessorGui", "JSON " + names, [
        s("JSONPostProcessor.referenceNames", names), s("JSONPostProcessor.jsonPathExprs", exprs),
        s("JSONPostProcessor.match_numbers", matches), s("JSONPostProcessor.defaultValues", defaults),
        b("JSONPostProcessor.compute_concat", concat)])

def foreach(name, input_, output, children, sep=True):
    return el("ForeachController", "ForeachControlPanel", name, [
        s("ForeachController.inputVal", input_), s("ForeachController.returnVal", output),
        b("ForeachController.useSeparator", sep)], children)

def write(path, text):
    with open(path, "w") as f:
        f.write(text)

def json_assert(path, expected="", validate=False, regex=True, expect_null=False, invert=False):
    return el("JSONPathAssertion", "JSONPathAssertionGui", "Assert " + path, [
        s("JSON_PATH", path), s("EXPECTED_VALUE", expected), b("JSONVALIDATION", validate),
        b("EXPECT_NULL", expect_null), b("INVERT", invert), b("ISREGEX", regex)])

def random_var(name, minimum, maximum, seed="", fmt="", per_thread=False):
    return el("RandomVariableConfig", "TestBeanGUI", "Random " + name, [
        s("variableName", name), s("outputFormat", fmt), s("minimumValue", minimum),
        s("maximumValue", maximum), s("randomSeed", seed), b("perThread", per_thread)])

def md5_assert(expected):
    return el("MD5HexAssertion", "MD5HexAssertionGUI", "MD5 " + expected, [s("MD5HexAssertion.size", expected)])

def debug_post(name="Debug PostProcessor"):
    return el("DebugPostProcessor", "TestBeanGUI", name, [
        b("displayJMeterProperties", False), b("displayJMeterVariables", True),
        b("displaySamplerProperties", True), b("displaySystemProperties", False)])

def response_assert(pattern):
    return el("ResponseAssertion", "AssertionGui", "Assert " + pattern, [
        '<collectionProp name="Asserion.test_strings">' + s("0", pattern) + '</collectionProp>',
        s("Assertion.custom_message", ""), s("Assertion.test_field", "Assertion.response_data"),
        b("Assertion.assume_success", False), '<intProp name="Assertion.test_type">2</intProp>'])

def jmes(ref, expr, match, default=""):
    return el("JMESPathExtractor", "JMESPathExtractorGui", "JMES " + ref, [
        s("JMESExtractor.referenceName", ref), s("JMESExtractor.jmesPathExpr", expr),
        s("JMESExtractor.matchNumber", match), s("JMESExtractor.defaultValue", default)])

def jmes_assert(path, expected="", validate=False, regex=True, expect_null=False, invert=False):
    return el("JMESPathAssertion", "JMESPathAssertionGui", "JMES assert " + path, [
        s("JMES_PATH", path), s("EXPECTED_VALUE", expected), b("JSONVALIDATION", validate),
        b("EXPECT_NULL", expect_null), b("INVERT", invert), b("ISREGEX", regex)])
