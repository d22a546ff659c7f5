//! `java.util.Random`: the 48-bit linear congruential generator Java uses, so that the
//! elements whose seeded sequences plans rely on (Random Variable, Open Model Thread
//! Group, Precise Throughput Timer) give the numbers JMeter gives.

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const ADDEND: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

#[derive(Debug, Clone)]
pub struct JavaRandom {
    seed: u64,
}

impl JavaRandom {
    pub fn new(seed: i64) -> JavaRandom {
        JavaRandom {
            seed: (seed as u64 ^ MULTIPLIER) & MASK,
        }
    }

    fn next(&mut self, bits: u32) -> i32 {
        self.seed = self.seed.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND) & MASK;
        (self.seed >> (48 - bits)) as i64 as i32
    }

    /// `nextDouble()`: 53 random bits in [0, 1).
    pub fn next_double(&mut self) -> f64 {
        let high = (self.next(26) as i64) << 27;
        let low = self.next(27) as i64;
        (high + low) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `nextInt(bound)` for `bound > 0`.
    pub fn next_int(&mut self, bound: i32) -> i32 {
        if bound & bound.wrapping_neg() == bound {
            return ((bound as i64 * self.next(31) as i64) >> 31) as i32;
        }
        loop {
            let bits = self.next(31);
            let value = bits % bound;
            if bits.wrapping_sub(value).wrapping_add(bound - 1) >= 0 {
                return value;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_java_for_a_known_seed() {
        // `new Random(42).nextInt()` is -1170105035 in every JVM.
        assert_eq!(JavaRandom::new(42).next(32), -1_170_105_035);
        // Its top 31 bits are 1562431130, so `nextInt(10)` is 0.
        assert_eq!(JavaRandom::new(42).next_int(10), 0);
        assert_eq!(JavaRandom::new(42).next_int(1 << 20), 1_562_431_130 >> 11);
        // `new Random(42).nextDouble()` is 0.7275636800328681 in every JVM.
        let mut random = JavaRandom::new(42);
        assert_eq!(random.next_double(), 0.7275636800328681);
        assert_eq!(random.next_double(), 0.6832234717598454);
    }
}
