//! The excerpt a failed Response Assertion "Equals" test prints: the common start, the
//! differing middle of both texts between `[[[` and `]]]`, and the common end.
//!
//! JMeter works on Java `char`s (UTF-16 code units), so lengths, truncation and padding
//! are counted in those units here too.

use crate::foundation::properties::Properties;

/// The look of the excerpt, from the properties JMeter reads for it.
pub(super) struct DiffStyle {
    /// `assertion.equals_section_diff_len` (default 100): longest section shown whole.
    section_len: usize,
    /// `assertion.equals_diff_delta_start` (default `[[[`).
    delta_start: String,
    /// `assertion.equals_diff_delta_end` (default `]]]`).
    delta_end: String,
}

const TRUNCATED: &str = "...";
const RECEIVED: &str = "****** received  : ";
const COMPARISON: &str = "****** comparison: ";

impl DiffStyle {
    pub(super) fn from_props(props: &Properties) -> DiffStyle {
        DiffStyle {
            section_len: props
                .get_i64("assertion.equals_section_diff_len", 100)
                .max(0) as usize,
            delta_start: props
                .get("assertion.equals_diff_delta_start")
                .unwrap_or_else(|| "[[[".to_string()),
            delta_end: props
                .get("assertion.equals_diff_delta_end")
                .unwrap_or_else(|| "]]]".to_string()),
        }
    }

    /// Keeps the first (`keep_start`) or last `section_len` units of `units`.
    fn trunc(&self, keep_start: bool, units: &[u16]) -> String {
        if units.len() <= self.section_len {
            String::from_utf16_lossy(units)
        } else if keep_start {
            String::from_utf16_lossy(&units[..self.section_len]) + TRUNCATED
        } else {
            let tail = String::from_utf16_lossy(&units[units.len() - self.section_len..]);
            format!("{TRUNCATED}{tail}")
        }
    }

    /// The excerpt for `received` (the tested text) against `comparison` (the pattern).
    pub(super) fn excerpt(&self, received: &str, comparison: &str) -> String {
        let rec: Vec<u16> = received.encode_utf16().collect();
        let comp: Vec<u16> = comparison.encode_utf16().collect();
        let first_diff = rec.iter().zip(&comp).take_while(|(a, b)| a == b).count();
        let common_start = if first_diff == 0 {
            String::new()
        } else {
            self.trunc(false, &rec[..first_diff])
        };
        // Walk back from both ends while they agree, never into the common start.
        let (mut rec_end, mut comp_end) = (rec.len(), comp.len());
        while rec_end > first_diff + 1
            && comp_end > first_diff + 1
            && rec[rec_end - 1] == comp[comp_end - 1]
        {
            rec_end -= 1;
            comp_end -= 1;
        }
        let common_end = self.trunc(true, &rec[rec_end.min(rec.len())..]);
        let (mut rec_delta, mut comp_delta) = if common_end.is_empty() {
            (
                self.trunc(true, &rec[first_diff.min(rec.len())..]),
                self.trunc(true, &comp[first_diff.min(comp.len())..]),
            )
        } else {
            (
                self.trunc(true, slice(&rec, first_diff, rec_end)),
                self.trunc(true, slice(&comp, first_diff, comp_end)),
            )
        };
        let (rec_len, comp_len) = (java_len(&rec_delta), java_len(&comp_delta));
        let pad = " ".repeat(rec_len.abs_diff(comp_len));
        if rec_len > comp_len {
            comp_delta.push_str(&pad);
        } else {
            rec_delta.push_str(&pad);
        }
        let (start, end) = (&self.delta_start, &self.delta_end);
        format!(
            "\n\n{RECEIVED}{common_start}{start}{rec_delta}{end}{common_end}\
             \n\n{COMPARISON}{common_start}{start}{comp_delta}{end}{common_end}\n\n"
        )
    }
}

fn slice(units: &[u16], from: usize, to: usize) -> &[u16] {
    let to = to.min(units.len());
    &units[from.min(to)..to]
}

fn java_len(text: &str) -> usize {
    text.encode_utf16().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excerpt(received: &str, comparison: &str) -> String {
        DiffStyle::from_props(&Properties::new()).excerpt(received, comparison)
    }

    #[test]
    fn whole_texts_differ() {
        assert_eq!(
            excerpt("200", "404"),
            "\n\n****** received  : [[[200]]]\n\n****** comparison: [[[404]]]\n\n"
        );
    }

    #[test]
    fn common_start_and_end_are_kept_outside() {
        assert_eq!(
            excerpt("abcXYZdef", "abcQdef"),
            "\n\n****** received  : abc[[[XYZ]]]def\n\n****** comparison: abc[[[Q  ]]]def\n\n"
        );
    }

    #[test]
    fn prefix_of_the_other() {
        assert_eq!(
            excerpt("abcdef", "abc"),
            "\n\n****** received  : abc[[[def]]]\n\n****** comparison: abc[[[   ]]]\n\n"
        );
        assert_eq!(
            excerpt("abc", "abcdef"),
            "\n\n****** received  : abc[[[   ]]]\n\n****** comparison: abc[[[def]]]\n\n"
        );
    }

    #[test]
    fn equal_texts_give_empty_deltas() {
        assert_eq!(
            excerpt("same", "same"),
            "\n\n****** received  : same[[[]]]\n\n****** comparison: same[[[]]]\n\n"
        );
    }

    #[test]
    fn long_sections_are_truncated() {
        let props = Properties::new();
        props.set("assertion.equals_section_diff_len", "3");
        let style = DiffStyle::from_props(&props);
        assert_eq!(
            style.excerpt("abcdefXghijkl", "abcdefYghijkl"),
            "\n\n****** received  : ...def[[[X]]]ghi...\n\n****** comparison: ...def[[[Y]]]ghi...\n\n"
        );
    }

    #[test]
    fn delimiters_come_from_properties() {
        let props = Properties::new();
        props.set("assertion.equals_diff_delta_start", "<");
        props.set("assertion.equals_diff_delta_end", ">");
        let style = DiffStyle::from_props(&props);
        assert_eq!(
            style.excerpt("a", "b"),
            "\n\n****** received  : <a>\n\n****** comparison: <b>\n\n"
        );
    }
}
