//! Which addresses a client's metadata document may be fetched from: public unicast only. A
//! client id is a URL anyone can choose, so without this rule it would aim our server at its
//! own network (the cloud's metadata service at 169.254.169.254, a VPC neighbour, loopback).
//! Applied to every address a host name resolves to, and to IP literals, before connecting.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A public unicast address: none of loopback, private (RFC 1918), link-local, CGNAT
/// (RFC 6598), unspecified, broadcast, multicast, documentation, benchmarking or reserved
/// ranges; for v6 only global unicast (`2000::/3`) outside its special blocks, and an embedded
/// v4 address (mapped, NAT64, 6to4) judged as v4.
pub(crate) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => public_v6(v6),
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let special = a == 0                                  // "this network", unspecified
        || a == 10                                        // private
        || a == 127                                       // loopback
        || (a == 100 && (64..128).contains(&b))           // CGNAT 100.64/10
        || (a == 169 && b == 254)                         // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b))            // private
        || (a == 192 && b == 168)                         // private
        || (a == 192 && b == 0 && c == 0)                 // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2)                 // documentation
        || (a == 198 && b == 51 && c == 100)              // documentation
        || (a == 203 && b == 0 && c == 113)               // documentation
        || (a == 198 && (b == 18 || b == 19))             // benchmarking
        || a >= 224; // multicast, reserved, broadcast
    !special
}

fn public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_v4(ip) {
        return public_v4(v4);
    }
    let s = ip.segments();
    let global_unicast = (s[0] & 0xe000) == 0x2000;
    // 2001::/23 (IETF protocol: Teredo, ORCHID…), 2001:db8::/32 and 3fff::/20 (documentation).
    let ietf = s[0] == 0x2001 && (s[1] < 0x0200 || s[1] == 0x0db8);
    let special = ietf || (s[0] == 0x3fff && s[1] < 0x1000);
    global_unicast && !special
}

/// The v4 address inside a v4-mapped (`::ffff:0:0/96`), NAT64 (`64:ff9b::/96`) or 6to4
/// (`2002::/16`) address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let o = ip.octets();
    let tail = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(tail),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(tail),
        [0x2002, ..] => Some(Ipv4Addr::new(o[2], o[3], o[4], o[5])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_unicast_addresses_pass() {
        let table = [
            ("93.184.216.34", true),
            ("8.8.8.8", true),
            ("100.63.255.255", true),
            ("100.128.0.1", true),
            ("172.32.0.1", true),
            ("0.0.0.0", false),
            ("127.0.0.1", false),
            ("127.255.0.9", false),
            ("10.1.2.3", false),
            ("172.16.0.1", false),
            ("172.31.255.255", false),
            ("192.168.1.1", false),
            ("169.254.169.254", false),
            ("100.64.0.1", false),
            ("100.127.255.254", false),
            ("192.0.0.170", false),
            ("192.0.2.1", false),
            ("198.18.0.1", false),
            ("224.0.0.1", false),
            ("255.255.255.255", false),
            ("2606:4700::1111", true),
            ("2a00:1450:4001::200e", true),
            ("::", false),
            ("::1", false),
            ("fc00::1", false),
            ("fd12:3456::1", false),
            ("fe80::1", false),
            ("fec0::1", false),
            ("ff02::1", false),
            ("2001:db8::1", false),
            ("2001::1", false),
            ("::ffff:127.0.0.1", false),
            ("::ffff:169.254.169.254", false),
            ("::ffff:8.8.8.8", true),
            ("64:ff9b::a9fe:a9fe", false),
            ("64:ff9b::808:808", true),
            ("2002:7f00:1::", false),
            ("2002:0808:0808::", true),
            ("::127.0.0.1", false),
            ("100::1", false),
        ];
        for (ip, public) in table {
            assert_eq!(is_public(ip.parse().unwrap()), public, "{ip}");
        }
    }
}
