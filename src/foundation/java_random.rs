//! Java's `java.util.Random` (a 48-bit linear congruential generator), for elements
//! whose seeded sequence plans rely on: the same seed gives JMeter's numbers.

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const ADDEND: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

#[derive(Debug, Clone)]
pub struct JavaRandom {
    seed: u64,
}

impl JavaRandom {
    /// `new Random(seed)`.
    pub fn new(seed: i64) -> JavaRandom {
        JavaRandom {
            seed: (seed as u64 ^ MULTIPLIER) & MASK,
        }
    }

    fn next(&mut self, bits: u32) -> u64 {
        self.seed = self.seed.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND) & MASK;
        self.seed >> (48 - bits)
    }

    /// `nextDouble()`: uniform in [0, 1) on 53 bits.
    pub fn next_double(&mut self) -> f64 {
        let high = self.next(26) << 27;
        let low = self.next(27);
        (high + low) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::JavaRandom;

    #[test]
    fn same_numbers_as_java() {
        // new java.util.Random(42).nextDouble() twice.
        let mut random = JavaRandom::new(42);
        assert_eq!(random.next_double(), 0.7275636800328681);
        assert_eq!(random.next_double(), 0.6832234717598454);
    }
}
