//! The real transport: renet's netcode over UDP. Connections are authenticated by netcode:
//! the protocol id (skitter's and its wire protocol's number) always, and with a shared
//! secret (`--secret`) a connect token sealed with a key made from it, so only viewers that
//! know the secret get in; its packets are encrypted and replay-protected either way.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use renet_netcode::{
    ClientAuthentication, ConnectToken, NetcodeServerTransport, ServerAuthentication, ServerConfig,
};
use renetcode::{NetcodeClient, NETCODE_MAX_PACKET_BYTES};
use sha2::{Digest, Sha256};

use super::conditioner::{Conditioner, LinkSim};
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

/// A viewer's UDP socket and netcode (renetcode's sans-IO client, so a link conditioner
/// can sit between it and the socket: `skitter join --net-sim`).
pub struct UdpViewer {
    socket: UdpSocket,
    netcode: NetcodeClient,
    server: SocketAddr,
    buffer: Vec<u8>,
    /// The simulated link, both ways (`None`: the real one only).
    sim: Option<(Conditioner, Conditioner)>,
    start: std::time::Instant,
}

impl UdpViewer {
    /// Connects to `server` (with the server's `secret`, if it has one), through a
    /// simulated link when `sim` is given.
    pub fn connect(
        server: SocketAddr,
        secret: Option<&str>,
        sim: Option<LinkSim>,
    ) -> anyhow::Result<UdpViewer> {
        // A server on this machine is reached from a loopback socket (nothing else is
        // listened on).
        let bind: SocketAddr = match (server.is_ipv6(), server.ip().is_loopback()) {
            (true, true) => "[::1]:0".parse()?,
            (true, false) => "[::]:0".parse()?,
            (false, true) => "127.0.0.1:0".parse()?,
            (false, false) => "0.0.0.0:0".parse()?,
        };
        let socket = UdpSocket::bind(bind)?;
        socket.set_nonblocking(true)?;
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
        let netcode = NetcodeClient::new(t, authentication)?;
        Ok(UdpViewer {
            socket,
            netcode,
            server,
            buffer: vec![0; NETCODE_MAX_PACKET_BYTES],
            sim: sim.map(|l| (Conditioner::new(l, 1), Conditioner::new(l, 2))),
            start: std::time::Instant::now(),
        })
    }

    fn send(&mut self, packet: Vec<u8>, now: f64) -> std::io::Result<()> {
        match self.sim.as_mut() {
            Some((up, _)) => up.send(now, packet),
            None => {
                self.socket.send_to(&packet, self.server)?;
            }
        }
        Ok(())
    }

    /// One frame: receive, the viewer's frame, send. An error is the connection's end.
    pub fn frame(&mut self, viewer: &mut NetViewer, dt: Duration) -> anyhow::Result<()> {
        let now = self.start.elapsed().as_secs_f64();
        if let Some(reason) = self.netcode.disconnect_reason() {
            viewer.renet().disconnect_due_to_transport();
            anyhow::bail!("disconnected: {reason}");
        }
        if self.netcode.is_connected() {
            viewer.renet().set_connected();
        } else if self.netcode.is_connecting() {
            viewer.renet().set_connecting();
        }
        let mut arrived = Vec::new();
        loop {
            match self.socket.recv_from(&mut self.buffer) {
                Ok((len, from)) if from == self.server => arrived.push(self.buffer[..len].to_vec()),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => break,
                Err(e) => return Err(e.into()),
            }
        }
        if let Some((_, down)) = self.sim.as_mut() {
            for p in arrived.drain(..) {
                down.send(now, p);
            }
            arrived = down.receive(now);
        }
        for mut p in arrived {
            viewer.saw_packet(p.len());
            if let Some(payload) = self.netcode.process_packet(&mut p) {
                viewer.renet().process_packet(payload);
            }
        }
        if let Some((packet, _)) = self.netcode.update(dt) {
            let packet = packet.to_vec();
            self.send(packet, now)?;
        }
        viewer.frame(dt.as_secs_f64(), now);
        if self.netcode.is_connected() {
            for packet in viewer.renet().get_packets_to_send() {
                let (_, payload) = self.netcode.generate_payload_packet(&packet)?;
                let payload = payload.to_vec();
                self.send(payload, now)?;
            }
        }
        if let Some((up, _)) = self.sim.as_mut() {
            for p in up.receive(now) {
                self.socket.send_to(&p, self.server)?;
            }
        }
        Ok(())
    }
}
