"""A PyTorch DDP communication hook that sends gradcodec frames instead of dense gradients.

    state, hook = gradcodec.torch.comm_hook("topk:density=0.01")
    model = torch.nn.parallel.DistributedDataParallel(model)
    model.register_comm_hook(state, hook)

Per bucket and step, each rank adds the residual it kept (error feedback) to the bucket,
encodes the sum into one frame, and keeps what the codec left out as the next residual. The
ranks all-gather their frames (first the sizes, then the frames padded to the longest), decode
their peers' ones, and average them with their own decoded values, which the encode hands
back (decoded=) from the decode that computes the residual.

The training-loop parts of Deep Gradient Compression are options:
- momentum=m: momentum correction. The hook accumulates u = m*u + g, adds u to the residual
  v and sends the sparsified v; where values were sent it clears u as well as v (factor
  masking; v keeps only the rounding of a sent value, if the codec rounds). Use the optimizer
  without momentum then.
- clip_norm=c: local gradient clipping, for a training loop that would clip the averaged
  gradient to c. Each rank scales its own bucket gradient down to an L2 norm of at most
  c * sqrt(world size) before it enters u or the residual: the mean of N independent
  gradients of that norm has a norm of about c. (DGC states the rule for a sum of gradients,
  c / sqrt(N); DDP averages, which divides by N.) Clipping the averaged gradient after the
  hook instead would cut accumulated values that the residual has already let go of, and
  handing the cut part back to the residual lets the residual run away (both measured in
  docs/results/train-compressed-baselines.md). The norm is the bucket's: with several
  buckets, each is clipped on its own.
- density=schedule: a function of the step (0, 1, ...) giving the density to send at that
  step, or None for the spec's own; dgc_warmup() makes DGC's exponential warm-up.
- dense_steps=K: the first K steps of every bucket are a plain all-reduce of the (clipped)
  gradient, and compression starts at step K: PowerSGD's start_powerSGD_iter (1000 in
  PyTorch's powerSGD_hook). Nothing enters the residual or the momentum in those steps, so use
  it with the optimizer's momentum. They count as steps: a density schedule and the all-reduce
  transport's shared seeds go on from step K, not from 0.
- per_tensor=True: DGC selects per layer. The hook then encodes each parameter's gradient in
  the bucket as a frame of its own, so a sparse codec keeps its density within every tensor
  (at least one value of each) instead of across the flattened bucket, where tensors of
  larger gradients crowd out the others. A rank sends its frames one after the other,
  preceded by their sizes. Each frame holds its parameter's gradient in the parameter's own
  shape, so a codec that reads the shape sees it: `lowrank` factors each parameter as a
  matrix (first dimension x the rest), and needs per_tensor=True for that; without it the
  whole bucket would be one vector, which lowrank could only carry by its fallback.

Which optimizer: error feedback works with the optimizer's own momentum (SGD momentum 0.9
on the averaged gradient) or with the hook's momentum correction (momentum=0.9 here, DGC's
rule, with an optimizer without momentum; never both). Measured on the digits CNN of
scripts/train-compressed, top-k 1% with error feedback, 1,760 steps: the optimizer's
momentum 98.89% (dense 98.89%), the hook's momentum with plain SGD 96.94%
(docs/results/optimizer-recipe.md, under the hook's earlier clipping limit). Other models can
rank them the other way: try both.

Checkpoints: state.state_dict() holds what the hook needs to resume (each
parameter's residual and momentum, PowerSGD's Q, the step of every bucket, which the density
schedule and the all-reduce transport's shared seeds follow); save it with the model and the
optimizer, and give it to load_state_dict() of the state of a new comm_hook() with the same
arguments, before the first step:

    state, hook = gradcodec.torch.comm_hook("topk:density=0.01", momentum=0.9)
    ddp.register_comm_hook(state, hook)
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "hook": state.state_dict()}, path)
    ...
    checkpoint = torch.load(path)
    state, hook = gradcodec.torch.comm_hook("topk:density=0.01", momentum=0.9)
    state.load_state_dict(checkpoint["hook"])
    ddp.register_comm_hook(state, hook)

Every rank saves and loads its own: residuals differ between ranks. The state follows the
parameters, numbered in the order the hook first meets them, which is the same in every
process that builds the same model and DDP the same way. As with DDP's PowerSGD state, the
process group is not saved (load_state_dict keeps the new state's). A hook that encodes per
parameter (per_tensor=True, lowrank) resumes to the bit; one whose codec sees the whole flat
bucket gets, in the first step after resuming, DDP's first-iteration bucket (parameters in
model order; DDP reorders its buckets after that step), so a selection that depends on
positions (randomk, ties in top-k) and the frames' bytes may differ in that step.

Encoding runs on the host: CUDA buckets are copied to the CPU and back, and the collectives
run on the bucket's device, so the hook is written to work with NCCL as with gloo; only the
CPU path (gloo) is tested.
"""

import math
import numbers
import time
import zlib

import torch
import torch.distributed as dist

from . import Codec, decode
from . import transport as summable_forms
from .transport import LowRankState, WireCounter, check_summable, spec_parts


class HookState:
    """What the hook keeps between steps, and its counters.

    bytes_sent, bytes_received: bytes this rank sent and received, counted from the size of every
        collective's message by its algorithm (gradcodec.transport.WireCounter): an all-gather
        of S bytes a rank moves (N-1)·S each way, a ring all-reduce of D bytes 2(N-1)/N·D
    bytes_frames: the frames' own sizes, without the all-gather's padding (all-gather only)
    bytes_dense: what a dense f32 ring all-reduce of the same buckets would have moved per rank
    encode_seconds, decode_seconds, comm_seconds: time spent in each part of the hook
    call_seconds: (encode, decode, comm) seconds of every call, for medians

    state_dict() and load_state_dict() save it with a checkpoint and resume from it, as
    DDP's PowerSGDState does (the module's docstring shows how).
    """

    def __init__(self, codec, error_feedback, momentum, process_group, clip_norm=None, density=None,
                 dense_steps=0):
        self.codec = codec
        self.error_feedback = error_feedback
        self.momentum = momentum
        self.process_group = process_group
        self.clip_norm = clip_norm
        self.density = density  # step -> density (None: the spec's), or None
        self.dense_steps = dense_steps  # steps of each bucket sent dense before compressing
        # Error feedback's residual and DGC's momentum u follow the parameters, not the bucket:
        # after the first step DDP rebuilds its buckets with the parameters in another order.
        # A parameter's key is ("parameter", n), n numbering the parameters in the order the hook
        # first meets them: the same in a process that resumes from state_dict().
        self._parameters = {}  # id(parameter) -> (n, parameter): held, so the id stays its own
        self._expected_counts = {}  # n -> element count, from load_state_dict, checked on sight
        self.residuals = {}  # parameter key -> its residual (flat CPU tensor, the bucket's dtype)
        self.velocities = {}  # parameter key -> its DGC momentum u
        self.layouts = {}  # bucket index -> [(parameter key, offset, count)] of its last call
        self._pending_velocity = {}  # bucket index -> u of the call in progress
        self.fingerprint = None  # of the spec and options, agreed with the peers on step 0
        self.frame_buffers = {}  # bucket index -> uint8 tensor of max_frame_size bytes
        self.steps = {}  # bucket index -> hook calls so far: the step, for the density schedule
        self.lowrank = None  # PowerSGD's warm-started Q per parameter (transport="allreduce")
        self.spec = codec.spec
        self._codecs = {None: codec}  # density -> Codec compiled for it
        self.reset_counters()

    def reset_counters(self):
        self.calls = 0
        self.wire = WireCounter()
        self.bytes_frames = 0
        self.encode_seconds = 0.0
        self.decode_seconds = 0.0
        self.comm_seconds = 0.0
        self.call_seconds = []

    @property
    def bytes_sent(self):
        return self.wire.bytes_sent

    @property
    def bytes_received(self):
        return self.wire.bytes_received

    @property
    def bytes_dense(self):
        return self.wire.bytes_dense

    def parameter_key(self, parameter):
        """The key of a parameter's residual and momentum: ("parameter", n), n its number in
        the order the hook met the parameters."""
        known = self._parameters.get(id(parameter))
        if known is None:
            number = len(self._parameters)
            expected = self._expected_counts.get(number)
            if expected is not None and expected != parameter.numel():
                raise RuntimeError(f"gradcodec hook: parameter {number} (in the order the hook meets them) "
                                   f"has {parameter.numel()} values, the loaded state_dict's {expected}: "
                                   "the state was saved for another model or DDP layout")
            known = (number, parameter)
            self._parameters[id(parameter)] = known
        return ("parameter", known[0])

    def state_dict(self):
        """What resuming needs, as tensors and plain values (torch.save writes it): each
        parameter's residual and momentum, the all-reduce transport's PowerSGD Q, every
        bucket's step, and the spec and options it was made with. The process group, the
        compiled codecs, the frame buffers and the byte and time counters are left out.
        Tensors are copies: training on does not change a saved state_dict."""
        def copied(table):
            return {key: value.detach().clone() for key, value in table.items()}

        counts = {number: parameter.numel() for number, parameter in self._parameters.values()}
        counts.update({n: c for n, c in self._expected_counts.items() if n not in counts})
        return {
            "version": _STATE_VERSION,
            "spec": self.spec,
            "fingerprint": self.fingerprint,
            "steps": dict(self.steps),
            "residuals": copied(self.residuals),
            "velocities": copied(self.velocities),
            "lowrank_q": None if self.lowrank is None else copied(self.lowrank.q),
            "parameter_counts": counts,
        }

    def load_state_dict(self, state_dict):
        """Continues from state_dict() of a state made by comm_hook() with the same spec and
        options (ValueError otherwise). Call it before the hook's first step in this process:
        the parameters are matched by their number (see parameter_key), and a parameter whose
        size differs from the saved one's raises when the hook meets it."""
        version = state_dict.get("version")
        if version != _STATE_VERSION:
            raise ValueError(f"gradcodec hook: a state_dict of version {version!r}; this hook reads version "
                             f"{_STATE_VERSION}")
        if state_dict["fingerprint"] != self.fingerprint:
            raise ValueError(f"gradcodec hook: the state_dict was saved by a hook of spec {state_dict['spec']!r} "
                             f"with other options than this one's ({self.spec!r} and its comm_hook arguments)")
        if self.steps or self._parameters:
            raise RuntimeError("gradcodec hook: load_state_dict must come before the hook's first step")
        if (state_dict["lowrank_q"] is None) != (self.lowrank is None):
            raise ValueError("gradcodec hook: the state_dict's PowerSGD state does not match this hook's")

        def copied(table):
            return {_key(key): value.detach().to("cpu").clone() for key, value in table.items()}

        self.steps = {int(index): int(step) for index, step in state_dict["steps"].items()}
        self.residuals = copied(state_dict["residuals"])
        self.velocities = copied(state_dict["velocities"])
        if self.lowrank is not None:
            self.lowrank.q = copied(state_dict["lowrank_q"])
        self._expected_counts = {int(n): int(c) for n, c in state_dict["parameter_counts"].items()}
        self.layouts = {}
        self._pending_velocity = {}

    def codec_for_step(self, index):
        """The codec for this bucket's next call: the spec's, or the density schedule's."""
        step = self.steps.get(index, 0)
        self.steps[index] = step + 1
        density = None if self.density is None else self.density(step)
        codec = self._codecs.get(density)
        if codec is None:
            codec = Codec(with_density(self.spec, density), self.codec.allow_nonfinite)
            self._codecs[density] = codec
        return codec

    def clipped(self, grad, world):
        """DGC's local clipping for an averaged gradient: this rank's limit, c * sqrt(world)."""
        if self.clip_norm is None:
            return grad
        limit = self.clip_norm * math.sqrt(world)
        norm = float(torch.linalg.vector_norm(grad.float()))
        if norm <= limit:
            return grad
        return grad * (limit / (norm + 1e-12))

    @staticmethod
    def _gather(table, keys, like):
        """The bucket's state from each parameter's (zeros for a parameter not seen yet)."""
        out = torch.zeros_like(like)
        for key, offset, count in keys:
            kept = table.get(key)
            if kept is not None and kept.numel() == count and kept.dtype == like.dtype:
                out[offset:offset + count] = kept
        return out

    @staticmethod
    def _scatter(table, keys, values):
        for key, offset, count in keys:
            table[key] = values[offset:offset + count]

    def bucket_state(self, table, index):
        """A bucket's residual or momentum (self.residuals or self.velocities) laid out as in its
        last call; None before its first."""
        keys = self.layouts.get(index)
        if keys is None or not any(key in table for key, _, _ in keys):
            return None
        like = next(table[key] for key, _, _ in keys if key in table)
        size = max(offset + count for _, offset, count in keys)
        return self._gather(table, keys, torch.zeros(size, dtype=like.dtype))

    def frame_buffer(self, index, codec, values, spans, shapes=None):
        # max_frame_size bounds a flat (rank 1) frame; a frame of another rank r also holds its
        # shape, 8 bytes per dimension (format-spec/FRAME.md section 1).
        shapes = shapes or [None] * len(spans)
        size = sum(codec.max_frame_size(count, _DTYPES[values.dtype]) + _shape_bytes(shape)
                   for (_, count), shape in zip(spans, shapes))
        buffer = self.frame_buffers.get(index)
        if buffer is None or buffer.numel() < size:
            buffer = torch.empty(size, dtype=torch.uint8)
            self.frame_buffers[index] = buffer
        return buffer

    def compensated(self, index, grad, keys=None):
        """The values to send: the gradient plus what earlier steps left out. keys: (parameter
        key, offset, count) of each parameter in the bucket (parameter_keys)."""
        keys = keys if keys is not None else [(("bucket", index, 0), 0, grad.numel())]
        self.layouts[index] = keys
        if self.momentum is not None:
            velocity = self._gather(self.velocities, keys, grad)
            velocity.mul_(self.momentum).add_(grad)
            self._pending_velocity[index] = velocity
            grad = velocity
        if not self.error_feedback:
            return grad.clone()
        return grad + self._gather(self.residuals, keys, grad)

    def after_encoding(self, index, residual, own_decoded):
        keys = self.layouts[index]
        if self.error_feedback:
            self._scatter(self.residuals, keys, residual)
        if self.momentum is not None:
            velocity = self._pending_velocity.pop(index)
            velocity.masked_fill_(own_decoded != 0, 0)
            self._scatter(self.velocities, keys, velocity)


_STATE_VERSION = 1


def _key(key):
    """A state key as the hook makes it: a tuple (torch.load may give a list)."""
    return tuple(key)


def _shape_bytes(shape):
    return 0 if shape is None or len(shape) == 1 else 8 * len(shape)


_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64"}


def with_density(spec, density):
    """The sparse codec spec `spec` sending `density` instead ("dgc:density=0.001" with 0.25
    gives "dgc:density=0.25"); None leaves it as it is."""
    if density is None:
        return spec
    if not 0.0 < density <= 1.0:
        raise ValueError(f"density must be in (0, 1], got {density}")
    name, _, options = spec.partition(":")
    kept = [o for o in options.split(",") if o and o.split("=")[0].strip() not in ("density", "count")]
    return f"{name}:" + ",".join(kept + [f"density={density!r}"])


def dgc_warmup(steps_per_stage, density, stages=4, start=0.25):
    """DGC's density warm-up as a schedule for comm_hook(density=...): `stages` stages of
    `steps_per_stage` steps whose density falls exponentially from `start` towards `density`
    (0.25, 0.063, 0.016, 0.004 for a target of 0.001), then `density` itself."""
    if steps_per_stage < 1 or stages < 0:
        raise ValueError("dgc_warmup: steps_per_stage must be >= 1 and stages >= 0")
    ratio = (density / start) ** (1.0 / stages) if stages else 1.0
    levels = [start * ratio ** stage for stage in range(stages)]

    def schedule(step):
        stage = step // steps_per_stage
        return levels[stage] if stage < stages else density

    schedule.levels = levels
    return schedule


def tensor_spans(bucket):
    """(offset, count) of each parameter's gradient in the bucket's flat buffer, in order.
    Raises unless they tile the buffer exactly: a value outside every span would never be sent."""
    return [(offset, count) for offset, count, _ in tensor_layout(bucket)]


def tensor_layout(bucket):
    """(offset, count, shape) of each parameter's gradient in the bucket's flat buffer, in
    order of offset: tensor_spans with each gradient's shape (the parameter's)."""
    buffer = bucket.buffer()
    base, width = buffer.data_ptr(), buffer.element_size()
    layout = sorted(((g.data_ptr() - base) // width, g.numel(), tuple(g.shape)) for g in bucket.gradients())
    end = 0
    for offset, count, _ in layout:
        if offset != end:
            raise RuntimeError(f"gradcodec hook: bucket {bucket.index()}: its gradients do not tile its buffer")
        end = offset + count
    if end != buffer.numel():
        raise RuntimeError(f"gradcodec hook: bucket {bucket.index()}: its gradients do not tile its buffer")
    return layout


def parameter_keys(bucket, layout, key_of):
    """(key, offset, count) of each entry of layout (tensor_layout(bucket)). The key follows the
    parameter (key_of(parameter) for DDP's bucket.parameters(), in the order of its
    gradients()), so state kept per key survives DDP's rebuild of its buckets; a bucket without
    parameters() keys by its index and the offset."""
    key_at = {}
    if hasattr(bucket, "parameters"):
        buffer = bucket.buffer()
        base, width = buffer.data_ptr(), buffer.element_size()
        for parameter, g in zip(bucket.parameters(), bucket.gradients()):
            key_at[(g.data_ptr() - base) // width] = key_of(parameter)
    return [(key_at.get(offset, ("bucket", bucket.index(), offset)), offset, count)
            for offset, count, _ in layout]


def encode_spans(codec, values, residual, decoded, spans, buffer, shapes=None):
    """Encodes values[offset:offset + count] of every span as its own frame, one after the other
    in buffer (residuals likewise into residual, None for none, and the frames' decoded values
    into decoded); returns the frames' sizes. shapes: each span's shape, which its frame then
    carries (the codec sees the values so shaped); None: flat frames."""
    sizes, at = [], 0
    for (offset, count), shape in zip(spans, shapes or [None] * len(spans)):
        rest = None if residual is None else residual[offset:offset + count]
        piece = values[offset:offset + count]
        if shape is not None:
            piece = piece.view(shape)
        # The residual and decoded slices stay flat: the encoder needs only their element count.
        size = codec.encode_into(piece, buffer[at:], residual=rest,
                                 decoded=decoded[offset:offset + count])
        sizes.append(size)
        at += size
    return sizes


def decode_spans(payload, sizes, spans, out):
    # A shaped frame decodes into a flat slice of its element count.
    at = 0
    for (offset, count), size in zip(spans, sizes):
        decode(payload[at:at + size], out=out[offset:offset + count])
        at += size


def average_frames(payloads, gathered_sizes, spans, own, rank):
    """The mean of every rank's decoded frames, summed in rank order; this rank's are `own`."""
    total, peer_values = None, None
    for peer, (payload, sizes) in enumerate(zip(payloads, gathered_sizes)):
        if peer == rank:
            part = own
        else:
            peer_values = torch.empty_like(own) if peer_values is None else peer_values
            decode_spans(payload.cpu().numpy(), sizes, spans, peer_values)
            part = peer_values
        if total is None:
            total = part.clone()
        else:
            total += part
    return total.div_(len(payloads))


def encode_decode_allgather(state, index, grad, spans=None, shapes=None, keys=None):
    """The average over ranks of decode(encode(compensated grad)), as a CPU tensor. spans:
    the (offset, count) pieces of the bucket to encode as separate frames; None: one frame.
    shapes: the shape each span's frame is encoded with (None: flat)."""
    group = state.process_group
    world = dist.get_world_size(group)
    device = grad.device
    spans = spans or [(0, grad.numel())]

    started = time.perf_counter()
    first = started
    codec = state.codec_for_step(index)
    values = state.compensated(index, state.clipped(grad.detach().to("cpu").contiguous(), world), keys)
    residual = torch.empty_like(values) if state.error_feedback else None
    # This rank's own frame, decoded by the encode that computes the residual: the average
    # needs it, and decoding it again would cost as much as decoding a peer's frame.
    own = torch.empty_like(values)
    buffer = state.frame_buffer(index, codec, values, spans, shapes)
    frame_sizes = encode_spans(codec, values, residual, own, spans, buffer, shapes)
    size = sum(frame_sizes)
    encoded = time.perf_counter()
    state.encode_seconds += encoded - started

    started = encoded
    own_sizes = torch.tensor(frame_sizes, dtype=torch.int64, device=device)
    gathered_sizes = [torch.empty_like(own_sizes) for _ in range(world)]
    dist.all_gather(gathered_sizes, own_sizes, group=group)
    gathered_sizes = [s.tolist() for s in gathered_sizes]
    longest = max(sum(s) for s in gathered_sizes)
    # Every rank's frames fit its buffer of max_frame_size per span (same codec, same bucket).
    padded = buffer[:longest].to(device)
    payloads = [torch.empty(longest, dtype=torch.uint8, device=device) for _ in range(world)]
    dist.all_gather(payloads, padded, group=group)
    gathered = time.perf_counter()
    state.comm_seconds += gathered - started

    started = gathered
    total = average_frames(payloads, gathered_sizes, spans, own, dist.get_rank(group))
    state.after_encoding(index, residual, own)
    finished = time.perf_counter()
    state.decode_seconds += finished - started
    state.call_seconds.append((encoded - first, finished - gathered, gathered - encoded))

    state.calls += 1
    state.wire.allgather(own_sizes.numel() * own_sizes.element_size(), world)
    state.wire.allgather(longest, world)
    state.wire.dense(grad.numel(), world)
    state.bytes_frames += size
    return total


def encode_decode_allreduce(state, index, grad, layout, keys):
    """The all-reduce transport's average (gradcodec.transport): the codec's summable form,
    summed by the backend, decoded once. layout: (offset, count, shape) of each parameter;
    keys: parameter_keys(bucket, layout)."""
    group = state.process_group
    world = dist.get_world_size(group)
    started = time.perf_counter()
    step = state.steps.get(index, 0)
    codec = state.codec_for_step(index)
    values = state.compensated(index, state.clipped(grad.detach().to("cpu").contiguous(), world), keys)
    values = values.to(torch.float32)
    # PowerSGD's warm-started Q follows its parameter across DDP's rebuild, as the residual does.
    pieces = [(key, offset, shape) for (key, offset, _), (_, _, shape) in zip(keys, layout)]
    collective_before = state.wire.collective_seconds
    average, sent = summable_forms.average(codec.spec, values, step, index, state.wire, group,
                                           lowrank_state=state.lowrank, pieces=pieces)
    residual = (values - sent).to(grad.dtype) if state.error_feedback else None
    state.after_encoding(index, residual, sent)
    finished = time.perf_counter()
    # The summable forms interleave their local work with the collectives: the collectives'
    # time is comm_seconds, the rest (forming, rounding, the one decode) encode_seconds.
    comm = state.wire.collective_seconds - collective_before
    state.comm_seconds += comm
    state.encode_seconds += finished - started - comm
    state.call_seconds.append((finished - started - comm, 0.0, comm))
    state.calls += 1
    return average.to(grad.dtype)


def dense_mean(state, grad):
    """The ranks' plain mean of the bucket: one all-reduce in its dtype, counted as dense."""
    average = grad.detach().clone()
    world = dist.get_world_size(state.process_group)
    dist.all_reduce(average, group=state.process_group)
    state.wire.ring_allreduce(average.numel() * average.element_size(), world)
    state.wire.dense(average.numel(), world)
    return average.div_(world)


def dense_step(state, index, grad):
    """One of a bucket's first dense_steps calls: the mean of every rank's clipped gradient."""
    started = time.perf_counter()
    state.steps[index] = state.steps.get(index, 0) + 1
    average = dense_mean(state, state.clipped(grad.detach(), dist.get_world_size(state.process_group)))
    comm = time.perf_counter() - started
    state.comm_seconds += comm
    state.call_seconds.append((0.0, 0.0, comm))
    state.calls += 1
    return average


def completed(average, grad):
    """A future holding the bucket's average on the bucket's device. A CUDA result needs the
    future to know its device, so that DDP waits on its stream."""
    future = torch.futures.Future(devices=[grad.device]) if grad.is_cuda else torch.futures.Future()
    future.set_result(average.to(grad.device, non_blocking=False))
    return future


def agree(state, bucket, grad):
    """One tiny all-reduce (MAX of three int64) per call, before any other collective: every
    rank checks that its peers run the same spec and options, and learns whether any rank's
    bucket holds a NaN or an infinity. Returns whether every bucket is finite; raises the same
    error on every rank when they disagree, or when one is not finite and non-finite values are
    not allowed, instead of leaving the others blocked in a collective."""
    finite = bool(torch.isfinite(grad).all())
    flags = torch.tensor([state.fingerprint, -state.fingerprint, 0 if finite else 1], dtype=torch.int64,
                         device=grad.device)
    dist.all_reduce(flags, op=dist.ReduceOp.MAX, group=state.process_group)
    world = dist.get_world_size(state.process_group)
    state.wire.ring_allreduce(flags.numel() * flags.element_size(), world)
    highest, lowest, any_nonfinite = int(flags[0]), -int(flags[1]), bool(flags[2])
    if highest != lowest:
        raise RuntimeError(f"gradcodec hook: bucket {bucket.index()}: the ranks run different codec specs or "
                           "hook options (every rank must call comm_hook with the same arguments); "
                           f"this rank runs {state.spec!r}")
    if any_nonfinite and not state.codec.allow_nonfinite:
        raise RuntimeError(f"gradcodec hook: step {state.steps.get(bucket.index(), 0)}, bucket {bucket.index()}: "
                           "a rank's gradients hold NaN or infinity; every rank stops here. With AMP's "
                           "GradScaler, pass allow_nonfinite=True so that such a step is skipped instead")
    return not any_nonfinite


def comm_hook(spec, error_feedback=True, momentum=None, process_group=None, allow_nonfinite=False,
              clip_norm=None, density=None, per_tensor=False, transport="allgather", dense_steps=0):
    """(state, hook) for DistributedDataParallel.register_comm_hook.

    spec: a gradcodec codec spec, e.g. "topk:density=0.01", "dgc:density=0.001".
    error_feedback: carry what the codec left out into the next step's bucket. Pair it with
        the optimizer's momentum or with the hook's momentum, not both (see the module's
        docstring for the measured comparison).
    momentum: DGC's momentum correction with this momentum (and factor masking).
    process_group: the group to communicate in (the default group when None).
    clip_norm: DGC's local gradient clipping, for the averaged gradient's norm: each rank's
        bucket to norm clip_norm*sqrt(world), so that the mean of independent buckets has a
        norm of about clip_norm.
    density: a schedule, step -> density (or None for the spec's), for a sparse codec's spec;
        dgc_warmup(steps_per_stage, target) gives DGC's warm-up.
    dense_steps: all-reduce each bucket's gradient uncompressed for its first dense_steps
        steps, as PowerSGD's start_powerSGD_iter does (see the module's docstring).
    per_tensor: encode each parameter's gradient in a bucket as its own frame, in the
        parameter's shape (DGC's per-layer selection; lowrank's matrices), instead of the whole
        bucket as one flat frame. Required for lowrank with transport="allgather".
    transport: "allgather" (every rank's frames to every rank: what each rank receives and
        decodes grows with the number of ranks N; any codec) or "allreduce" (the codec's
        summable form, summed by the backend and decoded once: traffic per rank stays about
        2(N-1)/N of the message whatever N; randomk, topk, dgc, sidco, rangeq, qsgd, terngrad,
        lowrank and cast, see gradcodec.transport). Choose "allreduce" beyond a few ranks, and
        "allgather" for codecs without a summable form or to send exactly the codec's frames.
    """
    if transport not in ("allgather", "allreduce"):
        raise ValueError(f"transport must be 'allgather' or 'allreduce', got {transport!r}")
    if momentum is not None and not 0.0 <= momentum < 1.0:
        raise ValueError(f"momentum must be in [0, 1), got {momentum}")
    if clip_norm is not None and not clip_norm > 0.0:
        raise ValueError(f"clip_norm must be positive, got {clip_norm}")
    if isinstance(dense_steps, bool) or not isinstance(dense_steps, numbers.Integral) or dense_steps < 0:
        raise ValueError(f"dense_steps must be a whole number of steps, 0 or more, got {dense_steps!r}")
    dense_steps = int(dense_steps)  # a NumPy integer too
    codec = Codec(spec, allow_nonfinite)
    if transport == "allreduce":
        check_summable(codec.spec)
        if per_tensor:
            raise ValueError("per_tensor=True applies to transport='allgather' (a frame per parameter); "
                             "the all-reduce forms select across the bucket, and lowrank factors each "
                             "parameter without it")
    if codec.name == "lowrank" and not per_tensor and transport == "allgather":
        raise ValueError(f"comm_hook({spec!r}): lowrank factors each parameter's gradient as a matrix "
                         "(first dimension x the rest) and needs per_tensor=True; a whole bucket is one "
                         "flat vector, which lowrank would only carry by its fallback codec")
    if density is not None:
        Codec(with_density(spec, density(0)), allow_nonfinite)  # a bad spec fails here, not in training
    state = HookState(codec, error_feedback, momentum, process_group, clip_norm, density, dense_steps)
    if codec.name == "lowrank":
        _, keys = spec_parts(codec.spec)
        state.lowrank = LowRankState(int(keys.get("rank", "4")), int(keys.get("seed", "0")))

    options = (codec.spec, error_feedback, momentum, clip_norm, per_tensor, transport, allow_nonfinite,
               density is None)
    # Appended only when set, so that a state_dict saved before dense_steps existed still loads.
    options += (("dense_steps", dense_steps),) if dense_steps else ()
    state.fingerprint = zlib.crc32(repr(options).encode())

    def hook(state, bucket):
        grad = bucket.buffer()
        if grad.dtype not in _DTYPES:
            raise TypeError(f"gradcodec hook: bucket of {grad.dtype}, expected a float type")
        # The parameters are numbered in the order the hook first meets them, which a process
        # resuming from state_dict() must meet again: in DDP's first step, before its buckets
        # are rebuilt. So every call numbers them, the dense and non-finite ones too.
        layout = tensor_layout(bucket)
        keys = parameter_keys(bucket, layout, state.parameter_key)
        if not agree(state, bucket, grad):
            # Some rank's bucket is not finite: the step is what a dense all-reduce gives (not
            # finite either, so AMP's GradScaler skips it), and it enters no residual or momentum.
            return completed(dense_mean(state, grad), grad)
        if state.steps.get(bucket.index(), 0) < state.dense_steps:
            return completed(dense_step(state, bucket.index(), grad), grad)
        if transport == "allreduce":
            return completed(encode_decode_allreduce(state, bucket.index(), grad, layout, keys), grad)
        spans = shapes = None
        if per_tensor:
            spans = [(offset, count) for offset, count, _ in layout]
            shapes = [shape for _, _, shape in layout]
        return completed(encode_decode_allgather(state, bucket.index(), grad, spans, shapes, keys), grad)

    return state, hook
