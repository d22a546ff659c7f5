//! The HTML 4.01 named character entities, as commons-lang3's `escapeHtml4` and
//! `unescapeHtml4` use them: the four basic ones, the Latin-1 set and the extended set.
//! `&apos;` is not an HTML 4 entity, so the apostrophe is neither escaped nor unescaped.

/// Names for U+00A0..=U+00FF, in code point order.
const LATIN1: [&str; 96] = [
    "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf",
    "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro",
    "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
    "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute",
    "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute",
    "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute",
    "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil",
    "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
    "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc",
    "uuml", "yacute", "thorn", "yuml",
];

/// The basic entities and HTML 4's extended set (Greek, symbols, punctuation).
const OTHERS: &[(&str, char)] = &[
    ("quot", '"'),
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("OElig", '\u{152}'),
    ("oelig", '\u{153}'),
    ("Scaron", '\u{160}'),
    ("scaron", '\u{161}'),
    ("Yuml", '\u{178}'),
    ("fnof", '\u{192}'),
    ("circ", '\u{2C6}'),
    ("tilde", '\u{2DC}'),
    ("Alpha", '\u{391}'),
    ("Beta", '\u{392}'),
    ("Gamma", '\u{393}'),
    ("Delta", '\u{394}'),
    ("Epsilon", '\u{395}'),
    ("Zeta", '\u{396}'),
    ("Eta", '\u{397}'),
    ("Theta", '\u{398}'),
    ("Iota", '\u{399}'),
    ("Kappa", '\u{39A}'),
    ("Lambda", '\u{39B}'),
    ("Mu", '\u{39C}'),
    ("Nu", '\u{39D}'),
    ("Xi", '\u{39E}'),
    ("Omicron", '\u{39F}'),
    ("Pi", '\u{3A0}'),
    ("Rho", '\u{3A1}'),
    ("Sigma", '\u{3A3}'),
    ("Tau", '\u{3A4}'),
    ("Upsilon", '\u{3A5}'),
    ("Phi", '\u{3A6}'),
    ("Chi", '\u{3A7}'),
    ("Psi", '\u{3A8}'),
    ("Omega", '\u{3A9}'),
    ("alpha", '\u{3B1}'),
    ("beta", '\u{3B2}'),
    ("gamma", '\u{3B3}'),
    ("delta", '\u{3B4}'),
    ("epsilon", '\u{3B5}'),
    ("zeta", '\u{3B6}'),
    ("eta", '\u{3B7}'),
    ("theta", '\u{3B8}'),
    ("iota", '\u{3B9}'),
    ("kappa", '\u{3BA}'),
    ("lambda", '\u{3BB}'),
    ("mu", '\u{3BC}'),
    ("nu", '\u{3BD}'),
    ("xi", '\u{3BE}'),
    ("omicron", '\u{3BF}'),
    ("pi", '\u{3C0}'),
    ("rho", '\u{3C1}'),
    ("sigmaf", '\u{3C2}'),
    ("sigma", '\u{3C3}'),
    ("tau", '\u{3C4}'),
    ("upsilon", '\u{3C5}'),
    ("phi", '\u{3C6}'),
    ("chi", '\u{3C7}'),
    ("psi", '\u{3C8}'),
    ("omega", '\u{3C9}'),
    ("thetasym", '\u{3D1}'),
    ("upsih", '\u{3D2}'),
    ("piv", '\u{3D6}'),
    ("ensp", '\u{2002}'),
    ("emsp", '\u{2003}'),
    ("thinsp", '\u{2009}'),
    ("zwnj", '\u{200C}'),
    ("zwj", '\u{200D}'),
    ("lrm", '\u{200E}'),
    ("rlm", '\u{200F}'),
    ("ndash", '\u{2013}'),
    ("mdash", '\u{2014}'),
    ("lsquo", '\u{2018}'),
    ("rsquo", '\u{2019}'),
    ("sbquo", '\u{201A}'),
    ("ldquo", '\u{201C}'),
    ("rdquo", '\u{201D}'),
    ("bdquo", '\u{201E}'),
    ("dagger", '\u{2020}'),
    ("Dagger", '\u{2021}'),
    ("bull", '\u{2022}'),
    ("hellip", '\u{2026}'),
    ("permil", '\u{2030}'),
    ("prime", '\u{2032}'),
    ("Prime", '\u{2033}'),
    ("lsaquo", '\u{2039}'),
    ("rsaquo", '\u{203A}'),
    ("oline", '\u{203E}'),
    ("frasl", '\u{2044}'),
    ("euro", '\u{20AC}'),
    ("image", '\u{2111}'),
    ("weierp", '\u{2118}'),
    ("real", '\u{211C}'),
    ("trade", '\u{2122}'),
    ("alefsym", '\u{2135}'),
    ("larr", '\u{2190}'),
    ("uarr", '\u{2191}'),
    ("rarr", '\u{2192}'),
    ("darr", '\u{2193}'),
    ("harr", '\u{2194}'),
    ("crarr", '\u{21B5}'),
    ("lArr", '\u{21D0}'),
    ("uArr", '\u{21D1}'),
    ("rArr", '\u{21D2}'),
    ("dArr", '\u{21D3}'),
    ("hArr", '\u{21D4}'),
    ("forall", '\u{2200}'),
    ("part", '\u{2202}'),
    ("exist", '\u{2203}'),
    ("empty", '\u{2205}'),
    ("nabla", '\u{2207}'),
    ("isin", '\u{2208}'),
    ("notin", '\u{2209}'),
    ("ni", '\u{220B}'),
    ("prod", '\u{220F}'),
    ("sum", '\u{2211}'),
    ("minus", '\u{2212}'),
    ("lowast", '\u{2217}'),
    ("radic", '\u{221A}'),
    ("prop", '\u{221D}'),
    ("infin", '\u{221E}'),
    ("ang", '\u{2220}'),
    ("and", '\u{2227}'),
    ("or", '\u{2228}'),
    ("cap", '\u{2229}'),
    ("cup", '\u{222A}'),
    ("int", '\u{222B}'),
    ("there4", '\u{2234}'),
    ("sim", '\u{223C}'),
    ("cong", '\u{2245}'),
    ("asymp", '\u{2248}'),
    ("ne", '\u{2260}'),
    ("equiv", '\u{2261}'),
    ("le", '\u{2264}'),
    ("ge", '\u{2265}'),
    ("sub", '\u{2282}'),
    ("sup", '\u{2283}'),
    ("nsub", '\u{2284}'),
    ("sube", '\u{2286}'),
    ("supe", '\u{2287}'),
    ("oplus", '\u{2295}'),
    ("otimes", '\u{2297}'),
    ("perp", '\u{22A5}'),
    ("sdot", '\u{22C5}'),
    ("lceil", '\u{2308}'),
    ("rceil", '\u{2309}'),
    ("lfloor", '\u{230A}'),
    ("rfloor", '\u{230B}'),
    ("lang", '\u{2329}'),
    ("rang", '\u{232A}'),
    ("loz", '\u{25CA}'),
    ("spades", '\u{2660}'),
    ("clubs", '\u{2663}'),
    ("hearts", '\u{2665}'),
    ("diams", '\u{2666}'),
];

/// The entity name for a character, if HTML 4 has one.
pub(super) fn name_of(c: char) -> Option<&'static str> {
    let code = c as u32;
    if (0xA0..=0xFF).contains(&code) {
        return LATIN1.get((code - 0xA0) as usize).copied();
    }
    OTHERS
        .iter()
        .find(|(_, ch)| *ch == c)
        .map(|(name, _)| *name)
}

/// The character an entity name stands for (case-sensitive, without `&` and `;`).
pub(super) fn char_of(name: &str) -> Option<char> {
    if let Some(index) = LATIN1.iter().position(|n| *n == name) {
        return char::from_u32(0xA0 + index as u32);
    }
    OTHERS.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::{char_of, name_of, OTHERS};

    #[test]
    fn table_has_every_html4_entity() {
        // 252 entities in HTML 4.01: 96 Latin-1 ones plus these.
        assert_eq!(OTHERS.len(), 252 - 96);
        assert_eq!(name_of('\u{A0}'), Some("nbsp"));
        assert_eq!(name_of('\u{FF}'), Some("yuml"));
        assert_eq!(name_of('é'), Some("eacute"));
        assert_eq!(char_of("euro"), Some('€'));
        assert_eq!(char_of("apos"), None);
        assert_eq!(name_of('\''), None);
    }
}
