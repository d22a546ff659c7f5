//! Stage 1 of indexing a JSON text (the idea of simdjson): the text is classified 64
//! bytes at a time into bitmasks, one bit per byte, and bit arithmetic over those masks
//! finds every *structural* position without looking at bytes one by one:
//!
//! - quotes and backslashes; a byte after an odd run of backslashes is escaped, and an
//!   unescaped quote toggles whether the text is inside a string (a prefix XOR of the
//!   quote mask, carried from block to block);
//! - the operators `{` `}` `[` `]` `:` `,` outside strings;
//! - pseudo-structurals: every opening quote, and the first byte of every run of bytes
//!   outside strings that are neither whitespace, operators nor quotes (a number, a
//!   literal, or garbage that stage 2 will refuse);
//! - control characters (below 0x20) inside strings, which JSON forbids: the text is
//!   refused, as it is when a string is left open.
//!
//! Stage 2 (`json_tape`) walks these positions in order, so it never scans whitespace
//! or string contents. Classification has an AVX2 path (used when the processor has
//! it) and a portable table-driven path; both give the same masks, hence the same
//! positions, which the tests check over many generated and mutated texts.

/// The positions stage 2 needs, in text order.
pub struct StructuralIndex {
    /// Operators outside strings, opening quotes and scalar starts, followed by the
    /// text's length as a sentinel.
    pub structurals: Vec<u32>,
    /// Backslashes that begin an escape sequence, followed by `u32::MAX` as a sentinel.
    pub escapes: Vec<u32>,
}

const BLOCK: usize = 64;

/// The classes of the bytes of one block, bit `i` standing for byte `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct BlockClasses {
    quote: u64,
    backslash: u64,
    /// `{` `}` `[` `]` `:` `,`
    operator: u64,
    /// Space, tab, line feed and carriage return: JSON's whitespace.
    whitespace: u64,
    /// Bytes below 0x20.
    control: u64,
}

/// What one block passes to the next.
#[derive(Default)]
struct Carry {
    /// The next block's first byte is escaped (bit 0 set).
    escaped: u64,
    /// All ones when the previous block ended inside a string.
    in_string: u64,
    /// 1 when the previous block ended with a scalar byte.
    scalar: u64,
}

/// The index of `text`, or `None` when a string is left open or holds a control
/// character (or the text does not fit 32-bit positions). Other errors are left to
/// stage 2.
pub fn index(text: &[u8]) -> Option<StructuralIndex> {
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        return avx2::index(text);
    }
    index_portable(text)
}

/// [`index`] without SIMD.
fn index_portable(text: &[u8]) -> Option<StructuralIndex> {
    index_with(text, classify_portable)
}

/// The shared driver: classification is the only part that differs between paths, and
/// it is inlined here so that each path is one loop.
#[inline(always)]
fn index_with(
    text: &[u8],
    classify: impl Fn(&[u8; BLOCK]) -> BlockClasses,
) -> Option<StructuralIndex> {
    let length = u32::try_from(text.len()).ok().filter(|&l| l < u32::MAX)?;
    let mut index = StructuralIndex {
        // Room for a position per byte and a whole block more, so that each block's
        // positions are written without growing (see `write_positions`).
        structurals: Vec::with_capacity(text.len() + BLOCK + 1),
        escapes: Vec::new(),
    };
    let mut carry = Carry::default();
    let mut blocks = text.chunks_exact(BLOCK);
    let mut base = 0u32;
    for block in blocks.by_ref() {
        let block: &[u8; BLOCK] = block.try_into().ok()?;
        index_block(&classify(block), base, &mut carry, &mut index)?;
        base += BLOCK as u32;
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        // Padding with whitespace adds no structural and changes no state.
        let mut padded = [b' '; BLOCK];
        padded[..rest.len()].copy_from_slice(rest);
        index_block(&classify(&padded), base, &mut carry, &mut index)?;
    }
    if carry.in_string != 0 {
        return None;
    }
    index.structurals.push(length);
    index.escapes.push(u32::MAX);
    Some(index)
}

/// Adds the positions of one block; `None` when a string holds a control character.
#[inline(always)]
fn index_block(
    classes: &BlockClasses,
    base: u32,
    carry: &mut Carry,
    index: &mut StructuralIndex,
) -> Option<()> {
    let (escaped, escape_starts) = escapes(classes.backslash, &mut carry.escaped);
    let quotes = classes.quote & !escaped;
    let in_string = prefix_xor(quotes) ^ carry.in_string;
    carry.in_string = ((in_string as i64) >> 63) as u64;
    if classes.control & in_string != 0 {
        return None;
    }
    let scalar = !(classes.operator | classes.whitespace | classes.quote | in_string);
    let scalar_starts = scalar & !((scalar << 1) | carry.scalar);
    carry.scalar = scalar >> 63;
    let structurals = (classes.operator & !in_string) | (quotes & in_string) | scalar_starts;
    write_positions(&mut index.structurals, base, structurals);
    let mut escape_starts = escape_starts;
    while escape_starts != 0 {
        index.escapes.push(base + escape_starts.trailing_zeros());
        escape_starts &= escape_starts - 1;
    }
    Some(())
}

/// The bytes escaped by a backslash, and the backslashes that begin an escape, in a
/// block whose first byte is escaped when `carry` is 1. Runs of backslashes are rare
/// in JSON, so they are walked one by one: the lowest backslash not itself escaped
/// escapes the byte after it.
#[inline(always)]
fn escapes(backslash: u64, carry: &mut u64) -> (u64, u64) {
    if backslash == 0 && *carry == 0 {
        return (0, 0);
    }
    let mut escaped = *carry;
    let mut starts = 0;
    let mut remaining = backslash & !escaped;
    *carry = 0;
    while remaining != 0 {
        let lowest = remaining & remaining.wrapping_neg();
        let next = lowest << 1;
        if next == 0 {
            *carry = 1;
        }
        starts |= lowest;
        escaped |= next;
        remaining &= !(lowest | next);
    }
    (escaped, starts)
}

/// Bit `i` of the result is the XOR of bits `0..=i` of `bits`: set from an opening
/// quote up to (not including) its closing quote.
#[inline(always)]
fn prefix_xor(mut bits: u64) -> u64 {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    bits
}

/// Appends the positions of the set bits of `bits` to `out`, which has room for 64
/// more. Eight are written at a time whether or not that many bits are left (the
/// extra ones lie beyond the new length), so that the loop has no branch per bit.
#[inline(always)]
fn write_positions(out: &mut Vec<u32>, base: u32, mut bits: u64) {
    let count = bits.count_ones() as usize;
    let spare = out.spare_capacity_mut();
    assert!(spare.len() >= BLOCK, "room for a block's positions");
    for group in spare[..BLOCK].chunks_exact_mut(8).take(count.div_ceil(8)) {
        for slot in group {
            slot.write(base.wrapping_add(bits.trailing_zeros()));
            bits &= bits.wrapping_sub(1);
        }
    }
    let length = out.len() + count;
    // SAFETY: the first `count` spare slots were written above, and the assertion
    // makes sure they lie within the capacity.
    unsafe { out.set_len(length) };
}

const QUOTE: u8 = 1;
const BACKSLASH: u8 = 2;
const OPERATOR: u8 = 4;
const WHITESPACE: u8 = 8;
const CONTROL: u8 = 16;

/// The class bits of every byte value.
const BYTE_CLASSES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = CONTROL;
        byte += 1;
    }
    table[b'"' as usize] = QUOTE;
    table[b'\\' as usize] = BACKSLASH;
    let operators = *b"{}[]:,";
    let mut i = 0;
    while i < operators.len() {
        table[operators[i] as usize] = OPERATOR;
        i += 1;
    }
    table[b' ' as usize] = WHITESPACE;
    table[b'\t' as usize] |= WHITESPACE;
    table[b'\n' as usize] |= WHITESPACE;
    table[b'\r' as usize] |= WHITESPACE;
    table
};

fn classify_portable(block: &[u8; BLOCK]) -> BlockClasses {
    let mut classes = BlockClasses::default();
    for (i, &byte) in block.iter().enumerate() {
        let class = BYTE_CLASSES[byte as usize];
        let bit = |flag: u8| u64::from(class & flag != 0) << i;
        classes.quote |= bit(QUOTE);
        classes.backslash |= bit(BACKSLASH);
        classes.operator |= bit(OPERATOR);
        classes.whitespace |= bit(WHITESPACE);
        classes.control |= bit(CONTROL);
    }
    classes
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;
    use std::sync::atomic::{AtomicU8, Ordering};

    use super::{index_with, BlockClasses, StructuralIndex, BLOCK};

    /// Whether the processor has AVX2 (and the bit instructions `tzcnt`, `blsr` and
    /// `popcnt` that make the positions cheap to list), asked once: 0 not asked yet,
    /// 1 absent, 2 present.
    static AVX2: AtomicU8 = AtomicU8::new(0);

    pub fn available() -> bool {
        match AVX2.load(Ordering::Relaxed) {
            0 => {
                let present = is_x86_feature_detected!("avx2")
                    && is_x86_feature_detected!("bmi1")
                    && is_x86_feature_detected!("popcnt");
                AVX2.store(if present { 2 } else { 1 }, Ordering::Relaxed);
                present
            }
            state => state == 2,
        }
    }

    pub fn index(text: &[u8]) -> Option<StructuralIndex> {
        // SAFETY: only called after `available()` found these features on this processor.
        unsafe { index_avx2(text) }
    }

    #[target_feature(enable = "avx2,bmi1,popcnt")]
    fn index_avx2(text: &[u8]) -> Option<StructuralIndex> {
        index_with(text, |block| classify(block))
    }

    /// Operators and whitespace are found with two nibble lookups (`vpshufb`): the
    /// table of the low nibble and that of the high nibble give class bits whose AND
    /// is non-zero exactly for these bytes. Bits 0-2: `,` (0x2c), `:` (0x3a), the
    /// brackets and braces (0x5b 0x5d 0x7b 0x7d); bits 3-4: space (0x20), and tab,
    /// line feed and carriage return (0x09 0x0a 0x0d).
    #[target_feature(enable = "avx2")]
    pub(super) fn classify(block: &[u8; BLOCK]) -> BlockClasses {
        // SAFETY: both 32-byte loads are within the 64-byte block; `loadu` needs no
        // alignment.
        let (first, second) = unsafe {
            let at = block.as_ptr().cast::<__m256i>();
            (_mm256_loadu_si256(at), _mm256_loadu_si256(at.add(1)))
        };
        let masks = |bytes: __m256i| -> [u64; 5] {
            let low_table = _mm256_setr_epi8(
                8, 0, 0, 0, 0, 0, 0, 0, 0, 16, 18, 4, 1, 20, 0, 0, //
                8, 0, 0, 0, 0, 0, 0, 0, 0, 16, 18, 4, 1, 20, 0, 0,
            );
            let high_table = _mm256_setr_epi8(
                16, 0, 9, 2, 0, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, //
                16, 0, 9, 2, 0, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0,
            );
            let nibble = _mm256_set1_epi8(0x0f);
            let low = _mm256_shuffle_epi8(low_table, _mm256_and_si256(bytes, nibble));
            let high_nibbles = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble);
            let high = _mm256_shuffle_epi8(high_table, high_nibbles);
            let class = _mm256_and_si256(low, high);
            let zero = _mm256_setzero_si256();
            let none_of = |bits: i8| {
                let masked = _mm256_and_si256(class, _mm256_set1_epi8(bits));
                _mm256_cmpeq_epi8(masked, zero)
            };
            let equal = |byte: u8| _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(byte as i8));
            let control_limit = _mm256_set1_epi8(0x1f);
            let control = _mm256_cmpeq_epi8(_mm256_max_epu8(bytes, control_limit), control_limit);
            let bits = |v: __m256i| u64::from(_mm256_movemask_epi8(v) as u32);
            [
                bits(equal(b'"')),
                bits(equal(b'\\')),
                !bits(none_of(0b111)) & 0xffff_ffff,
                !bits(none_of(0b11000)) & 0xffff_ffff,
                bits(control),
            ]
        };
        let [q1, b1, o1, w1, c1] = masks(first);
        let [q2, b2, o2, w2, c2] = masks(second);
        BlockClasses {
            quote: q1 | (q2 << 32),
            backslash: b1 | (b2 << 32),
            operator: o1 | (o2 << 32),
            whitespace: w1 | (w2 << 32),
            control: c1 | (c2 << 32),
        }
    }
}

#[cfg(test)]
#[path = "json_structural_tests.rs"]
mod tests;
