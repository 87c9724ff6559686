//! A seat's Play call (a bidirectional stream: `watch` first, then `submit`s; events, prompts
//! and each action's result back), for the tests that play over it.

use std::time::Duration;

use canasta_engine::Action;
use canasta_proto::convert::action_to_wire;
use canasta_proto::v1;
use canasta_proto::v1::play_response::Kind as Play;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Status, Streaming};

use crate::{Client, as_viewer};

/// One seat's Play call: where to send requests, and what comes back (the events seen so
/// far are kept).
pub struct PlayCall {
    /// The requests side: the call's sending side closes when this is dropped.
    pub requests: mpsc::Sender<v1::PlayRequest>,
    /// The responses side.
    pub responses: Streaming<v1::PlayResponse>,
    /// The events received so far, in order.
    pub events: Vec<v1::GameEvent>,
}

/// The opening request of a Play call on `game_id`, from the first event.
pub fn watch(game_id: &str) -> v1::PlayRequest {
    v1::PlayRequest {
        kind: Some(v1::play_request::Kind::Watch(v1::WatchGameRequest {
            game_id: game_id.to_string(),
            after_seq: 0,
            include_actions: false,
            include_view: false,
        })),
    }
}

/// An action to submit on a Play call.
pub fn submit(
    game_id: &str,
    expected_seq: u64,
    request_id: &str,
    action: &Action,
) -> v1::PlayRequest {
    v1::PlayRequest {
        kind: Some(v1::play_request::Kind::Submit(v1::SubmitActionRequest {
            game_id: game_id.to_string(),
            expected_seq,
            request_id: request_id.to_string(),
            action: Some(action_to_wire(action)),
        })),
    }
}

impl PlayCall {
    /// Opens a Play call with `first` as its first request.
    pub async fn open(
        client: &mut Client,
        token: Option<&str>,
        first: v1::PlayRequest,
    ) -> Result<PlayCall, Status> {
        let (requests, rx) = mpsc::channel(8);
        requests.send(first).await.expect("the receiver is here");
        let stream = ReceiverStream::new(rx);
        let responses = client.play(as_viewer(stream, token)).await?.into_inner();
        Ok(PlayCall {
            requests,
            responses,
            events: Vec::new(),
        })
    }

    /// Sends a request on the call, which must still be open.
    pub async fn send(&self, request: v1::PlayRequest) {
        self.requests.send(request).await.expect("the call is open");
    }

    /// The next message, within 10 s; `None` once the call has ended.
    pub async fn next(&mut self) -> Option<v1::play_response::Kind> {
        let message = tokio::time::timeout(Duration::from_secs(10), self.responses.next())
            .await
            .expect("a message within 10 s")?
            .expect("a good message");
        if let Some(Play::Update(v1::WatchGameResponse {
            kind: Some(Msg::Event(e)),
        })) = &message.kind
        {
            self.events.push(e.clone());
        }
        message.kind
    }

    /// The next action result, keeping the events met on the way.
    pub async fn result(&mut self) -> v1::PlayResult {
        loop {
            match self.next().await.expect("the call goes on") {
                Play::Result(r) => return r,
                Play::Update(v1::WatchGameResponse {
                    kind: Some(Msg::Lagged(l)),
                }) => panic!("lagged at {}", l.last_seq),
                Play::Update(_) => continue,
            }
        }
    }

    /// Reads until the events up to `seq` have come.
    pub async fn events_until(&mut self, seq: u64) -> &[v1::GameEvent] {
        while self.events.last().map_or(0, |e| e.seq) < seq {
            self.next().await.expect("the call goes on");
        }
        &self.events
    }
}

/// The requests side of a Play call that never sends anything: the stream stays open, empty.
pub struct Silent {
    asked: Option<tokio::sync::oneshot::Sender<()>>,
}

impl tokio_stream::Stream for Silent {
    type Item = v1::PlayRequest;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<v1::PlayRequest>> {
        if let Some(asked) = self.asked.take() {
            let _ = asked.send(());
        }
        // Never woken: it has nothing to send, ever.
        std::task::Poll::Pending
    }
}

/// Starts a Play call with `token` (or none) whose requests never come, and returns once its
/// headers are on their way: the transport asks for the first request only after it has
/// queued the call's headers on the connection, ahead of any call started after. The task
/// ends with the call's answer.
pub async fn silent_play(
    client: &Client,
    token: Option<&str>,
) -> tokio::task::JoinHandle<Result<(), Status>> {
    let mut client = client.clone();
    let (asked, was_asked) = tokio::sync::oneshot::channel();
    let request = as_viewer(Silent { asked: Some(asked) }, token);
    let call = tokio::spawn(async move { client.play(request).await.map(|_| ()) });
    tokio::time::timeout(Duration::from_secs(10), was_asked)
        .await
        .expect("the call's headers are sent within 10 s")
        .expect("the call asks for its first request");
    call
}
