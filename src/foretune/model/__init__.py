"""``foretune model``: a queueing model of the serving path, calibrated on the guides' measurements.

One module per job: :mod:`.workload` (what the hosts do), :mod:`.demands` (service demands per request
class, from cited calibration data or a ``foretune load`` result), :mod:`.network` (the resources of one
box: Apache slots, Puma workers and threads, pools, Candlepin threads, CPUs), :mod:`.engine` (the SimPy
simulation), :mod:`.bound` (the analytic bound beside it), :mod:`.validation` (the guide comparison),
:mod:`.recommend` (the smallest change that holds a workload) and :mod:`.output` (text and JSON).
SimPy is imported only by :mod:`.engine`.
"""
