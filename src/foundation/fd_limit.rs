//! The open-file limit. Every virtual user of a socket sampler holds a socket, and the
//! usual soft limit (1,024) is far below what a load test needs while the hard limit is
//! usually much higher; JMeter users raise it by hand. jmxr raises the soft limit to
//! the hard limit at start-up; samplers that still run out say so (`ulimit -n`).

/// Raises the soft limit on open files to the hard limit. Returns the new soft limit,
/// or `None` where that is not possible (not Unix, or the call failed).
pub fn raise_open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `limit` is a valid, writable rlimit for getrlimit to fill.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            // SAFETY: `raised` is a valid rlimit; setrlimit only reads it.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                limit.rlim_cur = limit.rlim_max;
            }
        }
        // `rlim_t` is not 64 bits on every Unix.
        #[allow(clippy::unnecessary_cast)]
        Some(limit.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_soft_limit_ends_at_least_where_it_was() {
        let raised = super::raise_open_file_limit();
        assert!(raised.is_none_or(|limit| limit >= 256));
    }
}
