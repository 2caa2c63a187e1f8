//! The real transport: renet's netcode over UDP. Connections are authenticated by netcode:
//! the protocol id (skitter's and its wire protocol's number) always, and with a shared
//! secret (`--secret`) a connect token sealed with a key made from it, so only viewers that
//! know the secret get in; its packets are encrypted and replay-protected either way.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use renet_netcode::{
    ClientAuthentication, ConnectToken, NetcodeClientTransport, NetcodeServerTransport,
    ServerAuthentication, ServerConfig,
};
use sha2::{Digest, Sha256};

use super::proto::NETCODE_PROTOCOL_ID;
use super::server::NetServer;
use super::viewer::NetViewer;
use crate::sim::World;

/// Most viewers a server takes.
const MAX_VIEWERS: usize = 32;

fn now() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// netcode's key from a shared secret.
fn key_of(secret: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"skitter netcode key\0");
    h.update(secret.as_bytes());
    h.finalize().into()
}

/// A server's UDP socket and netcode.
pub struct UdpServer {
    transport: NetcodeServerTransport,
}

impl UdpServer {
    /// Listens on `addr` (`127.0.0.1:0` picks a port); with `secret`, only viewers that know
    /// it connect.
    pub fn bind(addr: SocketAddr, secret: Option<&str>) -> std::io::Result<UdpServer> {
        let socket = UdpSocket::bind(addr)?;
        let public = socket.local_addr()?;
        let authentication = match secret {
            Some(s) => ServerAuthentication::Secure {
                private_key: key_of(s),
            },
            None => ServerAuthentication::Unsecure,
        };
        let transport = NetcodeServerTransport::new(
            ServerConfig {
                current_time: now(),
                max_clients: MAX_VIEWERS,
                protocol_id: NETCODE_PROTOCOL_ID,
                public_addresses: vec![public],
                authentication,
            },
            socket,
        )?;
        Ok(UdpServer { transport })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.transport.addresses()[0]
    }

    /// Receives what arrived and lets the server read it (`dt`: time since the last call).
    pub fn receive(&mut self, server: &mut NetServer, dt: Duration, world: &World) {
        // A bad packet is netcode's to drop; an error here is a socket's, and the next call
        // tries again.
        let _ = self.transport.update(dt, server.renet());
        server.update(dt, world);
    }

    /// Sends what the server queued.
    pub fn send(&mut self, server: &mut NetServer) {
        self.transport.send_packets(server.renet());
    }
}

/// A viewer's UDP socket and netcode.
pub struct UdpViewer {
    transport: NetcodeClientTransport,
    start: std::time::Instant,
}

impl UdpViewer {
    /// Connects to `server` (with the server's `secret`, if it has one).
    pub fn connect(server: SocketAddr, secret: Option<&str>) -> anyhow::Result<UdpViewer> {
        let bind: SocketAddr = if server.is_ipv6() {
            "[::]:0".parse()?
        } else {
            "0.0.0.0:0".parse()?
        };
        let socket = UdpSocket::bind(bind)?;
        let t = now();
        let client_id = t.as_nanos() as u64 ^ (std::process::id() as u64) << 32;
        let authentication = match secret {
            Some(s) => ClientAuthentication::Secure {
                connect_token: ConnectToken::generate(
                    t,
                    NETCODE_PROTOCOL_ID,
                    300,
                    client_id,
                    15,
                    vec![server],
                    None,
                    &key_of(s),
                )?,
            },
            None => ClientAuthentication::Unsecure {
                protocol_id: NETCODE_PROTOCOL_ID,
                client_id,
                server_addr: server,
                user_data: None,
            },
        };
        let transport = NetcodeClientTransport::new(t, authentication, socket)?;
        Ok(UdpViewer {
            transport,
            start: std::time::Instant::now(),
        })
    }

    /// One frame: receive, the viewer's frame, send. An error is the connection's end.
    pub fn frame(&mut self, viewer: &mut NetViewer, dt: Duration) -> anyhow::Result<()> {
        self.transport.update(dt, viewer.renet())?;
        viewer.frame(dt.as_secs_f64(), self.start.elapsed().as_secs_f64());
        self.transport.send_packets(viewer.renet())?;
        Ok(())
    }
}
