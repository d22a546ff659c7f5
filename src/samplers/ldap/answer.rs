//! The LDAP Extended Request's response data: JMeter's `XMLBuffer` layout (an opening
//! tag with no line break, a closing or empty tag followed by one, contents written
//! as given) and its search results: entries sorted by their names compared from the
//! last character (the first `ldapsampler.max_sorted_results` of them), each with its
//! attributes sorted by name and multiple values sorted and joined with `, `.

use crate::foundation::xml_escape::escape_xml10;

use super::directory::Entry;

/// JMeter's `XMLBuffer`.
#[derive(Default)]
pub struct XmlBuffer {
    out: String,
    open: Vec<&'static str>,
}

impl XmlBuffer {
    pub fn open_tag(&mut self, name: &'static str) {
        self.open.push(name);
        self.out.push('<');
        self.out.push_str(name);
        self.out.push('>');
    }

    pub fn close_tag(&mut self) {
        if let Some(name) = self.open.pop() {
            self.end_tag(name);
        }
    }

    fn end_tag(&mut self, name: &str) {
        self.out.push_str("</");
        self.out.push_str(name);
        self.out.push_str(">\n");
    }

    /// A tag with `content`, or an empty tag when there is none.
    pub fn tag(&mut self, name: &str, content: &str) {
        if content.is_empty() {
            self.out.push('<');
            self.out.push_str(name);
            self.out.push_str("/>\n");
        } else {
            self.out.push('<');
            self.out.push_str(name);
            self.out.push('>');
            self.out.push_str(content);
            self.end_tag(name);
        }
    }

    /// The text with every tag still open closed.
    pub fn finish(mut self) -> String {
        while let Some(name) = self.open.pop() {
            self.end_tag(name);
        }
        self.out
    }
}

/// A search result entry with the name JMeter prints: relative to the search, then
/// completed with the sampler's search base and root DN.
pub struct Named {
    pub name: String,
    pub entry: Entry,
}

/// JMeter's `normaliseSearchDN`: `name` followed by the search base and the root DN
/// unless it already ends with them.
pub fn normalised_name(relative: &str, search_base: &str, root_dn: &str) -> String {
    let mut name = relative.to_string();
    if !name.ends_with(search_base) {
        if !name.is_empty() {
            name.push(',');
        }
        name.push_str(search_base);
    }
    if !root_dn.is_empty() && !name.ends_with(root_dn) {
        if !name.is_empty() {
            name.push(',');
        }
        name.push_str(root_dn);
    }
    name
}

/// Writes the `<searchresult>` elements of `entries`: the first `sorted` in JMeter's
/// order, the rest as they came.
pub fn write_results(xml: &mut XmlBuffer, mut entries: Vec<Named>, sorted: usize) {
    let rest = entries.split_off(sorted.min(entries.len()));
    entries.sort_by(|a, b| compare_reversed(&a.name, &b.name));
    for entry in entries.iter().chain(rest.iter()) {
        write_result(xml, entry);
    }
}

fn write_result(xml: &mut XmlBuffer, named: &Named) {
    xml.open_tag("searchresult");
    xml.tag("dn", &named.name);
    xml.tag("returnedattr", &named.entry.attrs.len().to_string());
    xml.open_tag("attributes");
    let mut attrs: Vec<&(String, Vec<String>)> = named.entry.attrs.iter().collect();
    attrs.sort_by(|a, b| a.0.cmp(&b.0));
    for (id, values) in attrs {
        let mut written: Vec<String> = values.iter().map(|v| escape_xml10(v)).collect();
        if written.len() > 1 {
            written.sort();
        }
        xml.tag(id, &written.join(", "));
    }
    xml.close_tag();
    xml.close_tag();
}

/// JMeter's result order: characters compared from the end of both names, then the
/// shorter name first.
fn compare_reversed(a: &str, b: &str) -> std::cmp::Ordering {
    let mismatch = a.chars().rev().zip(b.chars().rev()).find(|(x, y)| x != y);
    match mismatch {
        Some((x, y)) => x.cmp(&y),
        None => a.chars().count().cmp(&b.chars().count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_lays_tags_out_as_jmeter_does() {
        let mut xml = XmlBuffer::default();
        xml.open_tag("ldapanswer");
        xml.open_tag("operation");
        xml.tag("opertype", "bind");
        xml.tag("baseobj", "");
        xml.close_tag();
        xml.tag("responsecode", "0");
        assert_eq!(
            xml.finish(),
            "<ldapanswer><operation><opertype>bind</opertype>\n<baseobj/>\n</operation>\n\
             <responsecode>0</responsecode>\n</ldapanswer>\n"
        );
    }

    #[test]
    fn search_names_are_completed_with_base_and_root() {
        assert_eq!(
            normalised_name("cn=a", "ou=people", "dc=x"),
            "cn=a,ou=people,dc=x"
        );
        assert_eq!(normalised_name("", "ou=people", ""), "ou=people");
        assert_eq!(normalised_name("cn=a", "", "dc=x"), "cn=a,dc=x");
    }

    #[test]
    fn results_sort_by_their_names_read_backwards() {
        let named = |name: &str| Named {
            name: name.to_string(),
            entry: Entry {
                dn: String::new(),
                attrs: vec![("mail".into(), vec!["b@x".into(), "a&x".into()])],
            },
        };
        let mut xml = XmlBuffer::default();
        write_results(&mut xml, vec![named("cn=b,o=x"), named("cn=a,o=x")], 1000);
        let text = xml.finish();
        assert!(text.starts_with("<searchresult><dn>cn=a,o=x</dn>\n<returnedattr>1</returnedattr>\n<attributes><mail>a&amp;x, b@x</mail>\n</attributes>\n</searchresult>\n<searchresult><dn>cn=b,o=x</dn>"), "{text}");
    }
}
