//! Address ranges (`192.0.2.0/24`, `2001:db8::/32`, one address) for the trusted-proxy list,
//! and the network a client address is counted under by the per-IP limit.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

/// An address range: `192.0.2.0/24`, `2001:db8::/32`, or one address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    net: IpAddr,
    bits: u8,
}

impl Cidr {
    pub fn parse(text: &str) -> Option<Cidr> {
        let (addr, bits) = match text.trim().split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (text.trim(), None),
        };
        let net: IpAddr = addr.parse().ok()?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            Some(b) => b.parse().ok().filter(|b| *b <= max)?,
            None => max,
        };
        Some(Cidr { net, bits })
    }

    /// The network `ip` is counted under: an IPv4 address alone, an IPv6 address by its first
    /// `v6_bits` (one host usually holds a whole /64, so counting /128s limits nobody).
    pub fn around(ip: IpAddr, v6_bits: u8) -> Cidr {
        match ip.to_canonical() {
            IpAddr::V4(v4) => Cidr {
                net: IpAddr::V4(v4),
                bits: 32,
            },
            IpAddr::V6(v6) => {
                let bits = v6_bits.min(128);
                let mask = u128::MAX.checked_shl(u32::from(128 - bits)).unwrap_or(0);
                Cidr {
                    net: IpAddr::V6(Ipv6Addr::from(u128::from(v6) & mask)),
                    bits,
                }
            }
        }
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let prefix = |a: u128, b: u128, bits: u8, width: u8| {
            let shift = width - bits;
            bits == 0 || (a >> shift) == (b >> shift)
        };
        match (self.net, ip.to_canonical()) {
            (IpAddr::V4(n), IpAddr::V4(i)) => {
                prefix(u32::from(n).into(), u32::from(i).into(), self.bits, 32)
            }
            (IpAddr::V6(n), IpAddr::V6(i)) => prefix(n.into(), i.into(), self.bits, 128),
            _ => false,
        }
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.net, self.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn clients_are_counted_by_address_in_v4_and_by_prefix_in_v6() {
        let around = |s: &str, bits| Cidr::around(ip(s), bits).to_string();
        assert_eq!(around("192.0.2.7", 64), "192.0.2.7/32");
        assert_eq!(
            around("::ffff:192.0.2.7", 64),
            "192.0.2.7/32",
            "v4-mapped v6"
        );
        assert_eq!(around("2001:db8:1:2:aaaa::1", 64), "2001:db8:1:2::/64");
        assert_eq!(around("2001:db8:1:2:ffff::9", 64), "2001:db8:1:2::/64");
        assert_ne!(around("2001:db8:1:3::1", 64), around("2001:db8:1:2::1", 64));
        assert_eq!(around("2001:db8:1:2::1", 128), "2001:db8:1:2::1/128");
        assert_eq!(around("2001:db8:1:2::1", 48), "2001:db8:1::/48");
        assert!(Cidr::around(ip("2001:db8:1:2::1"), 64).contains(ip("2001:db8:1:2::99")));
    }

    #[test]
    fn ranges_parse_and_match_for_both_families() {
        let v4 = Cidr::parse("192.0.2.0/24").unwrap();
        assert!(v4.contains(ip("192.0.2.200")) && !v4.contains(ip("192.0.3.1")));
        assert!(v4.contains(ip("::ffff:192.0.2.1")), "v4-mapped v6");
        let v6 = Cidr::parse("2001:db8::/32").unwrap();
        assert!(v6.contains(ip("2001:db8:1::1")) && !v6.contains(ip("2001:db9::1")));
        assert!(Cidr::parse("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
        assert_eq!(
            Cidr::parse("192.0.2.1").unwrap(),
            Cidr::parse("192.0.2.1/32").unwrap()
        );
        assert!(Cidr::parse("192.0.2.0/33").is_none() && Cidr::parse("nope").is_none());
    }
}
