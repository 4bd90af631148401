# README "Shipped topologies": a PCIe-only node (8 L40S behind 4 PCIe switches, 2 sockets), the analytic model beside the SimGrid replay, which builds its PCIe links, switch uplinks and socket link
run scenarios/procurement/l40s_pcie_8b.toml --engine both
