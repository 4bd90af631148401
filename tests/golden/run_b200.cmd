# README "Using it": DGX B200, the analytic model beside the SimGrid replay (the B200 calibration and NVSwitch/NDR figures)
run scenarios/procurement/b200_70b.toml --engine both
