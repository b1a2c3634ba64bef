import ipaddr from "ipaddr.js";

/**
 * The network a client address stands for in per-address limits: an IPv4 address as it is (an IPv4-mapped
 * IPv6 address as its IPv4 one), an IPv6 address as its /64, because one subscriber usually holds a whole /64
 * and could otherwise take a fresh address for every try. Anything unparseable is kept as given.
 */
export function clientNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
