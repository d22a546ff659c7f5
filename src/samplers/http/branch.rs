//! The HTTP state of a bzm Parallel Controller's branch (`engine::parallel`).
//!
//! The plugin makes the Cookie Manager thread-safe and lets every branch use it, so
//! the branches of one user share its cookies. Here a branch starts from a copy of the
//! user's cookie jars, caches and DNS caches, with no connection of its own; when the
//! branches are done their cookies are added back to the user's jars, their kept-alive
//! connections join the user's pool, in the order of the branches.

use super::{UserHttp, HTTP_SLOT};
use crate::user_state::UserState;

/// Gives `branch` the user's cookies and caches (copied) and an empty connection pool.
pub fn lend_to_branch(user: &mut UserState, branch: &mut UserState) {
    let parent = user.slot(HTTP_SLOT, UserHttp::default);
    let lent = UserHttp {
        pool: parent.pool.lend_without_connections(),
        h2: Default::default(),
        iteration: parent.iteration,
        jars: parent.jars.clone(),
        caches: parent.caches.clone(),
        md5_only: parent.md5_only,
    };
    *branch.slot(HTTP_SLOT, UserHttp::default) = lent;
}

/// Takes back what `branch` learnt: its cookies, its kept-alive connections and DNS
/// answers. Cached responses stay with the branch (the user's cache is as it was).
pub fn take_back_from_branch(user: &mut UserState, branch: &mut UserState) {
    let lent = std::mem::take(branch.slot(HTTP_SLOT, UserHttp::default));
    let parent = user.slot(HTTP_SLOT, UserHttp::default);
    parent.pool.give_back(lent.pool);
    for (key, jar) in &lent.jars {
        super::per_manager(&mut parent.jars, key).absorb(jar);
    }
}
