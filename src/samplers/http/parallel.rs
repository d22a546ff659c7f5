//! Parallel downloads of embedded resources (`HTTPSampler.concurrentDwn`, at most
//! `HTTPSampler.concurrentPool` at once), as `HTTPSamplerBase` runs them:
//!
//! * each resource is sampled by its own copy of the sampler, which sees the user's
//!   variables and a copy of the user's cookie jar taken before the downloads start;
//!   afterwards the cookies of every copy are added back to the user's jar in the order
//!   of the URL list (JMeter's `cookieManager.add` for each);
//! * each download leases its own connection from the user's pool (an idle one to its
//!   origin, else a new one), and the connections go back to the pool when it ends, as
//!   HttpClient's connection manager shared by the download threads does;
//! * the results are added to the container in the order of the URL list, not in the
//!   order they completed, so the sub-results are those of a sequential download.
//! * with `httpsampler.embedded_resources_use_md5` the downloads keep only the MD5 of
//!   each body (so a frame fetched that way has no resources of its own), as JMeter
//!   sets "Use MD5" on its copies of the sampler.
//!
//! Here a download is a copy of the virtual user's state ([`UserState`]) holding the
//! lent HTTP state; the downloads run as futures of the user's own task.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use super::url::Url;
use super::{HttpSampler, UserHttp, HTTP_SLOT};
use crate::plan::SampleContext;
use crate::sample::SampleAction;
use crate::sample::SampleResult;
use crate::user_state::UserState;

/// `HTTPSamplerBase.CONCURRENT_POOL_SIZE`: the pool size when the setting is not a number.
const DEFAULT_POOL_SIZE: i64 = 6;

impl HttpSampler {
    /// How many resources may be fetched at once, or `None` to fetch them one after the
    /// other (parallel downloads off, or a pool of one).
    pub(super) fn parallel_limit(&self, cx: &mut SampleContext<'_>) -> Option<usize> {
        if !self.spec.concurrent_download {
            return None;
        }
        let label = cx.label.clone();
        let text = self.spec.concurrent_pool.eval(&mut cx.user.eval(&label));
        // Java's Integer.parseInt: no surrounding spaces; anything else is the default.
        let size = text.parse::<i32>().map_or(DEFAULT_POOL_SIZE, i64::from);
        usize::try_from(size).ok().filter(|size| *size > 1)
    }

    /// Samples each of `urls` as an embedded resource at frame depth `depth`, at most
    /// `limit` at once; the results come back in the order of `urls`.
    pub(super) async fn fetch_in_parallel(
        &self,
        cx: &mut SampleContext<'_>,
        urls: Vec<Url>,
        depth: usize,
        limit: usize,
    ) -> Vec<SampleResult> {
        let local = self.source_address(cx).await.ok().flatten();
        let md5_only = cx
            .user
            .run
            .props
            .get("httpsampler.embedded_resources_use_md5")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let mut downloads: Vec<UserState> = urls
            .iter()
            .map(|url| {
                let parent = cx.user.slot(HTTP_SLOT, UserHttp::default);
                let lent = UserHttp {
                    pool: parent.pool.lend_for(url, local),
                    iteration: parent.iteration,
                    jars: parent.jars.clone(),
                    caches: parent.caches.clone(),
                    md5_only: md5_only || parent.md5_only,
                    // HTTP/2 sessions are not lent: a parallel download over HTTP/2
                    // opens its own connection.
                    h2: Default::default(),
                };
                let mut download = cx.user.copy_for_branch();
                *download.slot(HTTP_SLOT, UserHttp::default) = lent;
                download
            })
            .collect();
        let label = cx.label.clone();
        let element_id = cx.element_id;
        let fetches: Vec<_> = downloads
            .iter_mut()
            .zip(urls)
            .map(|(user, url)| {
                let label = label.clone();
                async move {
                    let mut download_cx = SampleContext {
                        user,
                        label,
                        element_id,
                        action: SampleAction::Continue,
                    };
                    self.fetch_resource(&mut download_cx, url, depth).await
                }
            })
            .collect();
        let results = in_order_at_most(fetches, limit).await;
        let cache_size = self.spec.cache_manager.as_ref().map(|c| c.max_size);
        for mut download in downloads {
            let lent = std::mem::take(download.slot(HTTP_SLOT, UserHttp::default));
            let parent = cx.user.slot(HTTP_SLOT, UserHttp::default);
            parent.pool.give_back(lent.pool);
            for (key, jar) in &lent.jars {
                super::per_manager(&mut parent.jars, key).absorb(jar);
            }
            if let Some(max_size) = cache_size {
                for (key, cache) in lent.caches {
                    super::per_manager(&mut parent.caches, &key).absorb(cache, max_size);
                }
            }
        }
        results
    }
}

/// Runs `futures` with at most `limit` in progress at any time, starting them in order,
/// and gives their outputs in the order of `futures`.
async fn in_order_at_most<F: Future>(futures: Vec<F>, limit: usize) -> Vec<F::Output> {
    let count = futures.len();
    let mut pending: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = (0..count).map(|_| None).collect();
    let mut started = 0;
    let mut running: Vec<usize> = Vec::with_capacity(limit);
    std::future::poll_fn(|task| loop {
        while running.len() < limit.max(1) && started < count {
            running.push(started);
            started += 1;
        }
        let before = running.len();
        running.retain(|&i| match pending[i].as_mut().poll(task) {
            Poll::Ready(output) => {
                outputs[i] = Some(output);
                false
            }
            Poll::Pending => true,
        });
        if running.is_empty() && started == count {
            return Poll::Ready(());
        }
        // Nothing ended: every running future has registered its wake-up.
        if running.len() == before {
            return Poll::Pending;
        }
    })
    .await;
    outputs
        .into_iter()
        .map(|output| output.expect("every future ran to completion"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn outputs_keep_the_input_order_and_the_limit_holds() {
        let in_flight = std::sync::atomic::AtomicUsize::new(0);
        let most = std::sync::atomic::AtomicUsize::new(0);
        let futures: Vec<_> = [200u64, 40, 120, 80, 160]
            .into_iter()
            .enumerate()
            .map(|(i, ms)| {
                let (in_flight, most) = (&in_flight, &most);
                async move {
                    use std::sync::atomic::Ordering::SeqCst;
                    let now = in_flight.fetch_add(1, SeqCst) + 1;
                    most.fetch_max(now, SeqCst);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    in_flight.fetch_sub(1, SeqCst);
                    i
                }
            })
            .collect();
        let started = std::time::Instant::now();
        assert_eq!(in_order_at_most(futures, 2).await, [0, 1, 2, 3, 4]);
        assert_eq!(most.load(std::sync::atomic::Ordering::SeqCst), 2);
        // Lanes: 200 then 160 (ending at 360) beside 40, 120 and 80 (ending at 240);
        // one after the other would take 600.
        let elapsed = started.elapsed();
        assert!(elapsed >= Duration::from_millis(360), "{elapsed:?}");
        assert!(elapsed < Duration::from_millis(600), "{elapsed:?}");
    }
}
