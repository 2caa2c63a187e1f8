//! Server and viewers in one process, their packets carried in memory through link
//! conditioners on a virtual clock: the tests' network, and `skitter join --net-sim`'s
//! model of one.

use renet::ClientId;

use super::conditioner::{Conditioner, LinkSim};
use super::server::NetServer;
use super::viewer::NetViewer;
use crate::sim::World;

/// One viewer on a conditioned in-memory link.
pub struct Link {
    /// The viewer.
    pub viewer: NetViewer,
    /// Server to viewer.
    pub down: Conditioner,
    /// Viewer to server.
    pub up: Conditioner,
    id: ClientId,
    /// Packets to hand the server as if this viewer sent them (a hostile client's).
    pub inject: Vec<Vec<u8>>,
    /// Every packet the viewer sent, when set (to replay them).
    pub tap: Option<Vec<Vec<u8>>>,
}

/// A server and its in-memory viewers.
pub struct Loopback {
    /// The server.
    pub server: NetServer,
    /// The viewers' links.
    pub links: Vec<Link>,
    now: f64,
    next_id: ClientId,
}

impl Loopback {
    /// A server with no viewers yet.
    pub fn new(server: NetServer) -> Loopback {
        Loopback {
            server,
            links: Vec::new(),
            now: 0.0,
            next_id: 1,
        }
    }

    /// The virtual clock (s).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Connects a viewer over a link doing `sim` (both ways), seeded. Returns its index.
    pub fn connect(&mut self, mut viewer: NetViewer, sim: LinkSim, seed: u64) -> usize {
        let id = self.next_id;
        self.next_id += 1;
        self.server.renet().add_connection(id);
        viewer.renet().set_connected();
        self.links.push(Link {
            viewer,
            down: Conditioner::new(sim, seed.wrapping_mul(2).wrapping_add(1)),
            up: Conditioner::new(sim, seed.wrapping_mul(2).wrapping_add(2)),
            id,
            inject: Vec::new(),
            tap: None,
        });
        self.links.len() - 1
    }

    /// The server's id for link `i`'s viewer.
    pub fn client_id(&self, i: usize) -> u64 {
        self.links[i].id
    }

    /// Moves the clock on by `dt`: the server's packets through each link, every viewer's
    /// frame, their packets back, the server's update.
    pub fn pump(&mut self, dt: f64, world: &World) {
        self.now += dt;
        let now = self.now;
        for l in &mut self.links {
            if let Ok(packets) = self.server.renet().get_packets_to_send(l.id) {
                for p in packets {
                    l.down.send(now, p);
                }
            }
            for p in l.down.receive(now) {
                l.viewer.renet().process_packet(&p);
            }
            l.viewer.frame(dt, now);
            for p in l.viewer.renet().get_packets_to_send() {
                if let Some(t) = l.tap.as_mut() {
                    t.push(p.clone());
                }
                l.up.send(now, p);
            }
            let mut arrived = l.up.receive(now);
            arrived.append(&mut l.inject);
            for p in arrived {
                let _ = self.server.renet().process_packet_from(&p, l.id);
            }
        }
        self.server
            .update(std::time::Duration::from_secs_f64(dt), world);
        // What the UDP transport does: a connection renet ended is taken out, and its
        // viewer learns it.
        for id in self.server.renet().disconnections_id() {
            self.server.renet().remove_connection(id);
            if let Some(l) = self.links.iter_mut().find(|l| l.id == id) {
                l.viewer.renet().disconnect_due_to_transport();
            }
        }
    }
}
