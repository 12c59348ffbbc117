//! Who a connection counts against for the handshake caps per peer
//! (`pending.rs`, `waiting_room.rs`): an IPv4 address, an IPv6 /64, or a
//! uid on a Unix socket.

use std::net::IpAddr;

use crate::listener::Peer;

/// What a connection counts against for the per-peer cap: its peer's
/// address on TCP, its peer's uid on a Unix socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PeerKey {
    Ip(IpAddr),
    Uid(u32),
}

impl PeerKey {
    pub(crate) fn of(peer: Peer) -> Self {
        match peer {
            Peer::Ip(address) => Self::Ip(peer_of(address.ip())),
            Peer::Uid(uid) => Self::Uid(uid),
        }
    }
}

/// The peer a connection counts against: its IPv4 address (also when it
/// arrives as an IPv4-mapped IPv6 address), or its IPv6 /64.
fn peer_of(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, Ipv6Addr};

    use super::*;

    #[test]
    fn peers_are_addresses_and_ipv6_slash_64s() {
        let v4: IpAddr = Ipv4Addr::new(192, 0, 2, 7).into();
        assert_eq!(peer_of(v4), v4);
        let mapped: IpAddr = Ipv4Addr::new(192, 0, 2, 7).to_ipv6_mapped().into();
        assert_eq!(peer_of(mapped), v4);
        let host: Ipv6Addr = "2001:db8:1:2:aaaa:bbbb:cccc:dddd".parse().unwrap();
        let neighbour: Ipv6Addr = "2001:db8:1:2::1".parse().unwrap();
        let elsewhere: Ipv6Addr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(peer_of(host.into()), peer_of(neighbour.into()));
        assert_ne!(peer_of(host.into()), peer_of(elsewhere.into()));
    }
}
