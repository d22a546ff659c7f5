//! Random draws for the random timers: a standard normal and a Poisson count.
//!
//! The Poisson draw follows the two classic methods JMeter's timer uses: multiplying
//! uniforms until they fall under e^-λ for small λ (≤ 30), and Atkinson's rejection
//! method (logistic envelope) above, where the product method would be slow.

use std::f64::consts::PI;

use rand::rngs::SmallRng;
use rand::Rng;

/// A draw from N(0, 1) (Marsaglia's polar method, as `java.util.Random.nextGaussian`).
pub(super) fn standard_normal(rng: &mut SmallRng) -> f64 {
    loop {
        let a = 2.0 * rng.gen::<f64>() - 1.0;
        let b = 2.0 * rng.gen::<f64>() - 1.0;
        let s = a * a + b * b;
        if s > 0.0 && s < 1.0 {
            return a * (-2.0 * s.ln() / s).sqrt();
        }
    }
}

/// A draw from Poisson(λ); 0 for λ ≤ 0.
pub(super) fn poisson(rng: &mut SmallRng, lambda: i32) -> i32 {
    if lambda <= 30 {
        poisson_by_products(rng, lambda)
    } else {
        poisson_by_rejection(rng, lambda)
    }
}

/// Counts uniforms multiplied together before the product drops to e^-λ or below.
fn poisson_by_products(rng: &mut SmallRng, lambda: i32) -> i32 {
    let limit = (-f64::from(lambda)).exp();
    let mut product = 1.0;
    let mut count = -1;
    loop {
        count += 1;
        product *= rng.gen::<f64>();
        if product <= limit {
            return count;
        }
    }
}

/// Atkinson (1979), "The computer generation of Poisson random variables", method PA.
fn poisson_by_rejection(rng: &mut SmallRng, lambda: i32) -> i32 {
    let lambda_f = f64::from(lambda);
    let c = 0.767 - 3.36 / lambda_f;
    let beta = PI / (3.0 * lambda_f).sqrt();
    let alpha = beta * lambda_f;
    let k = c.ln() - lambda_f - beta.ln();
    loop {
        let u: f64 = rng.gen();
        let x = (alpha - ((1.0 - u) / u).ln()) / beta;
        let n = (x + 0.5).floor();
        if !(0.0..=f64::from(i32::MAX)).contains(&n) {
            continue;
        }
        let v: f64 = rng.gen();
        let y = alpha - beta * x;
        let lhs = y + (v / (1.0 + y.exp()).powi(2)).ln();
        let rhs = k + n * lambda_f.ln() - ln_factorial(n);
        if lhs <= rhs {
            return n as i32;
        }
    }
}

/// ln(n!) for a whole `n` ≥ 0: summed exactly while small, else Stirling's series.
fn ln_factorial(n: f64) -> f64 {
    if n < 16.0 {
        return (2..=n as u32).map(|k| f64::from(k).ln()).sum();
    }
    let x = n + 1.0;
    (x - 0.5) * x.ln() - x + 0.5 * (2.0 * PI).ln() + 1.0 / (12.0 * x) - 1.0 / (360.0 * x.powi(3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn mean_and_variance(draws: &[f64]) -> (f64, f64) {
        let n = draws.len() as f64;
        let mean = draws.iter().sum::<f64>() / n;
        let variance = draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n;
        (mean, variance)
    }

    #[test]
    fn ln_factorial_is_accurate_on_both_sides_of_the_switch() {
        let exact = |n: u32| (2..=n).map(|k| f64::from(k).ln()).sum::<f64>();
        for n in [0u32, 1, 5, 15, 16, 17, 50, 300] {
            assert!((ln_factorial(f64::from(n)) - exact(n)).abs() < 1e-8, "{n}");
        }
    }

    #[test]
    fn normal_draws_have_unit_spread() {
        let mut rng = SmallRng::seed_from_u64(1);
        let draws: Vec<f64> = (0..20_000).map(|_| standard_normal(&mut rng)).collect();
        let (mean, variance) = mean_and_variance(&draws);
        assert!(mean.abs() < 0.05, "{mean}");
        assert!((variance - 1.0).abs() < 0.05, "{variance}");
    }

    #[test]
    fn poisson_mean_and_variance_are_lambda() {
        let mut rng = SmallRng::seed_from_u64(2);
        for lambda in [3, 30, 31, 200] {
            let draws: Vec<f64> = (0..20_000)
                .map(|_| f64::from(poisson(&mut rng, lambda)))
                .collect();
            let (mean, variance) = mean_and_variance(&draws);
            let l = f64::from(lambda);
            assert!((mean - l).abs() < 0.05 * l + 0.1, "λ {lambda}: mean {mean}");
            assert!(
                (variance - l).abs() < 0.1 * l + 0.2,
                "λ {lambda}: variance {variance}"
            );
            assert!(draws.iter().all(|&d| d >= 0.0));
        }
    }

    #[test]
    fn non_positive_lambda_gives_zero() {
        let mut rng = SmallRng::seed_from_u64(3);
        assert_eq!(poisson(&mut rng, 0), 0);
        assert_eq!(poisson(&mut rng, -5), 0);
    }
}
