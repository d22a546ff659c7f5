//! Tests of the text functions.

use super::{java_decode, unescape_html4, unescape_java};
use crate::expr::functions::testing::Fixture;

#[test]
fn char_decodes_java_numbers() {
    let mut f = Fixture::new();
    assert_eq!(f.eval("${__char(65,0x42,0103, 68 ,#45)}"), "ABCDE");
    assert_eq!(f.eval("${__char(0xD83D,0xDE00)}"), "😀");
    assert_eq!(f.eval("${__char(x,65)}"), "A");
    assert_eq!(java_decode("-10"), Some(-10));
    assert_eq!(java_decode("0"), Some(0));
    assert_eq!(java_decode("08"), None);
    assert_eq!(java_decode("0x-1"), None);
}

#[test]
fn change_case_modes() {
    let mut f = Fixture::new();
    assert_eq!(f.eval("${__changeCase(abc Def)}"), "ABC DEF");
    assert_eq!(f.eval("${__changeCase(abc Def,lower)}"), "abc def");
    assert_eq!(f.eval("${__changeCase(abc def,Capitalize,C)}"), "Abc def");
    assert_eq!(f.var("C"), Some("Abc def"));
    assert_eq!(f.eval("${__changeCase(abc,weird)}"), "abc");
}

#[test]
fn url_encoding_round_trips() {
    let mut f = Fixture::new();
    assert_eq!(
        f.eval("${__urlencode(a b&c=d/é*~)}"),
        "a+b%26c%3Dd%2F%C3%A9*%7E"
    );
    assert_eq!(f.eval("${__urldecode(a+b%26c%3Dd%2F%C3%A9)}"), "a b&c=d/é");
}

#[test]
fn unescape_java_escapes() {
    assert_eq!(unescape_java(r"a\tb\nc"), "a\tb\nc");
    assert_eq!(unescape_java(r"\u0041\uu0042\101\7"), "ABA\u{7}");
    assert_eq!(unescape_java(r#"\"q\" \\ \x"#), "\"q\" \\ x");
    assert_eq!(unescape_java(r"\u12"), r"\u12");
    assert_eq!(unescape_java(r"\u+0041 \u+-041"), r"A \u+-041");
    assert_eq!(unescape_java(r"\uD83D\uDE00"), "😀");
    let mut f = Fixture::new();
    assert_eq!(f.eval(r"${__unescape(a\\tb)}"), "a\tb");
}

#[test]
fn escape_xml() {
    let mut f = Fixture::new();
    assert_eq!(
        f.eval("${__escapeXml(<a href=\"x\">'&'</a>)}"),
        "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;"
    );
    assert_eq!(f.eval("${__escapeXml(a\u{1}b\u{80}c)}"), "ab&#128;c");
}

#[test]
fn escape_html_leaves_the_apostrophe() {
    let mut f = Fixture::new();
    assert_eq!(
        f.eval("${__escapeHtml(\"bread\" & 'butter' <é> €)}"),
        "&quot;bread&quot; &amp; 'butter' &lt;&eacute;&gt; &euro;"
    );
}

#[test]
fn unescape_html_entities() {
    assert_eq!(
        unescape_html4("&lt;&eacute;&#233;&#xE9;&apos;&amp"),
        "<ééé&apos;&amp"
    );
    assert_eq!(unescape_html4("a & b &nope; &#;"), "a & b &nope; &#;");
    let mut f = Fixture::new();
    assert_eq!(f.eval("${__unescapeHtml(&quot;x&quot;)}"), "\"x\"");
}

#[test]
fn str_len_counts_utf16_units_and_stores() {
    let mut f = Fixture::new();
    assert_eq!(f.eval("${__strLen(hello)}"), "5");
    // Java counts a character outside the BMP as two units.
    assert_eq!(f.eval("${__strLen(\u{e9}\u{1f600},len)}"), "3");
    assert_eq!(f.var("len"), Some("3"));
}
