//! A player's event stream (WatchPlayer): the kept events after the seq asked for, then the
//! live ones, heartbeats while idle; it ends with `Lagged` when the reader falls further behind
//! than the feed holds (`--watch-buffer`) or takes no message for `--watch-send-timeout-secs`,
//! as a game's watch stream does, and at shutdown. The reader resumes from the last seq it saw
//! and loses nothing.

use std::sync::Arc;
use std::time::Duration;

use canasta_proto::v1;
use tokio::sync::{broadcast, mpsc, watch};
use tonic::Status;

use crate::ratelimit::StreamSlot;

/// A new stream's events: the kept ones after the seq asked for, and the live feed.
pub struct Subscription {
    /// Kept events after the seq asked for.
    pub backlog: Vec<Arc<v1::PlayerEvent>>,
    /// Everything from now on.
    pub live: broadcast::Receiver<Arc<v1::PlayerEvent>>,
    /// The seq asked for.
    pub last: u64,
}

/// One player's stream, fed by its own task.
pub struct PlayerStream {
    /// What it sends.
    pub sub: Subscription,
    /// The time between heartbeats.
    pub heartbeat: Duration,
    /// How long a message may wait for the reader.
    pub send_timeout: Duration,
    /// The server's stop.
    pub shutdown: watch::Receiver<bool>,
    /// Where it sends.
    pub tx: mpsc::Sender<Result<v1::WatchPlayerResponse, Status>>,
    /// Its place among the key's streams.
    pub _slot: Option<StreamSlot>,
}

enum Sent {
    Ok,
    Stop,
}

impl PlayerStream {
    /// Feeds the stream until it ends.
    pub async fn run(mut self) {
        let backlog = std::mem::take(&mut self.sub.backlog);
        for event in backlog {
            if let Sent::Stop = self.event(&event).await {
                return;
            }
        }
        let mut shutdown = self.shutdown.clone();
        loop {
            let message = tokio::select! {
                m = self.sub.live.recv() => m,
                _ = tokio::time::sleep(self.heartbeat) => {
                    let beat = v1::WatchPlayerResponse {
                        kind: Some(v1::watch_player_response::Kind::Heartbeat(v1::Heartbeat {
                            seq: self.sub.last,
                        })),
                    };
                    if let Sent::Stop = self.send(beat).await {
                        return;
                    }
                    continue;
                }
                _ = shutdown.changed() => return,
            };
            match message {
                Ok(event) => {
                    if let Sent::Stop = self.event(&event).await {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    self.lagged();
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    }

    async fn event(&mut self, event: &Arc<v1::PlayerEvent>) -> Sent {
        // The live feed may repeat what the backlog held.
        if event.seq <= self.sub.last {
            return Sent::Ok;
        }
        let message = v1::WatchPlayerResponse {
            kind: Some(v1::watch_player_response::Kind::Event((**event).clone())),
        };
        let sent = self.send(message).await;
        if let Sent::Ok = sent {
            self.sub.last = event.seq;
        }
        sent
    }

    /// Sends a message, keeping the queue's last place for a final Lagged; a reader that
    /// takes nothing for the send time-out is told it lagged.
    async fn send(&mut self, message: v1::WatchPlayerResponse) -> Sent {
        match tokio::time::timeout(self.send_timeout, self.tx.reserve_many(2)).await {
            Ok(Ok(mut places)) => {
                places.next().expect("two places").send(Ok(message));
                Sent::Ok
            }
            Ok(Err(_)) => Sent::Stop,
            Err(_) => {
                self.lagged();
                Sent::Stop
            }
        }
    }

    fn lagged(&self) {
        let _ = self.tx.try_send(Ok(v1::WatchPlayerResponse {
            kind: Some(v1::watch_player_response::Kind::Lagged(v1::Lagged {
                last_seq: self.sub.last,
            })),
        }));
    }
}
