//! The one WebSocket connection a virtual user holds, shared by all its WebSocket
//! samplers (the plugin keeps it in a thread-local), and what becomes of it when the
//! user ends (`websocket.thread.stop.policy`).

use std::sync::Arc;

use parking_lot::Mutex;

use super::connection::{Connection, State, Target};
use crate::user_state::UserState;

/// The user slot that holds the connection; slots of elements count up from 0.
const WS_SLOT: usize = usize::MAX - 0x5753;

/// The property that says what happens to a user's connection when the user ends.
pub const STOP_POLICY: &str = "websocket.thread.stop.policy";

/// `websocket.thread.stop.policy`: `none` (the default) leaves the connection open
/// until the run ends, `tcpClose` closes it, `wsClose` sends a close frame (status 1000,
/// "test thread finished") and closes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopPolicy {
    None,
    TcpClose,
    WsClose,
}

impl StopPolicy {
    fn parse(text: Option<&str>) -> StopPolicy {
        match text.map(|t| t.trim().to_ascii_uppercase()).as_deref() {
            Some("TCPCLOSE") => StopPolicy::TcpClose,
            Some("WSCLOSE") => StopPolicy::WsClose,
            _ => StopPolicy::None,
        }
    }
}

/// The plugin's cached client: where it connects, and the connection when there is
/// one (`None` stands for the plugin's `CLOSED` state).
pub struct Client {
    pub target: Target,
    pub connection: Option<Connection>,
}

impl Client {
    pub fn new(target: Target) -> Client {
        Client {
            target,
            connection: None,
        }
    }

    pub fn state(&self) -> State {
        self.connection.as_ref().map_or(State::Closed, |c| c.state)
    }

    pub fn is_connected(&self) -> bool {
        self.state() == State::Connected
    }
}

/// Connections of users that ended under the `none` policy, kept open until the run
/// ends as the plugin leaves them.
#[derive(Default)]
struct Kept(Mutex<Vec<Connection>>);

/// What the slot holds.
struct UserWs {
    client: Option<Client>,
    policy: StopPolicy,
    kept: Option<Arc<Kept>>,
}

impl Drop for UserWs {
    fn drop(&mut self) {
        let Some(connection) = self.client.take().and_then(|c| c.connection) else {
            return;
        };
        match self.policy {
            StopPolicy::None => {
                if let Some(kept) = &self.kept {
                    kept.0.lock().push(connection);
                }
            }
            StopPolicy::TcpClose => drop(connection),
            StopPolicy::WsClose => {
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(async move {
                        let mut connection = connection;
                        let _ = connection.send_close(1000, "test thread finished").await;
                        connection.dispose().await;
                    });
                }
            }
        }
    }
}

fn slot(user: &mut UserState) -> &mut UserWs {
    let run = user.run.clone();
    user.slot(WS_SLOT, || {
        let policy = StopPolicy::parse(run.props.get(STOP_POLICY).as_deref());
        UserWs {
            client: None,
            policy,
            kept: run.shared("websocket.kept_connections", Kept::default),
        }
    })
}

/// Takes the user's client out of its slot (give it back with [`put_back`]).
pub fn take(user: &mut UserState) -> Option<Client> {
    slot(user).client.take()
}

/// Keeps `client` as the user's client (`None`: the user has none).
pub fn put_back(user: &mut UserState, client: Option<Client>) {
    slot(user).client = client;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_policy_reads_as_the_plugin_reads_it() {
        assert_eq!(StopPolicy::parse(Some("wsClose")), StopPolicy::WsClose);
        assert_eq!(StopPolicy::parse(Some(" tcpclose ")), StopPolicy::TcpClose);
        assert_eq!(StopPolicy::parse(Some("other")), StopPolicy::None);
        assert_eq!(StopPolicy::parse(None), StopPolicy::None);
    }
}
