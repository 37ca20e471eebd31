"""MindSpore's public names, per namespace: the names only (facts), extracted
from MindSpore's API documentation in github.com/mindspore-ai/mindspore,
docs/api/api_python_en/ (the stored versions named below; they span MindSpore
1.9 to 2.x, so a few names are older or newer than 2.10). Two lists come from
github.com/mindspore-ai/mindspore_test (a mirror of MindSpore's source with its
history; HEAD a05ce58802d47fba782ecef8d971e05a078727c1 of 2025-07-05):

  mindspore          mindspore.rst               00e433dda9b9ce7f60b7f8c6167120b908dbe365
  ops (functional)   mindspore.ops.function.rst  045787689fa246fd1d3ff5d06b1cdb0c31221b9d
  ops (Primitive)    mindspore.ops.primitive.rst 0101b59ec2f4700eb2f4f7806f8fb53c835d3726
  nn                 mindspore.nn.rst            00e433dda9b9ce7f60b7f8c6167120b908dbe365
  numpy              mindspore/python/mindspore/numpy/__init__.py's __all__, mindspore_test
                     a05ce58802d47fba782ecef8d971e05a078727c1 (249 names; replaces
                     mindspore.numpy.rst@00e433dd's 229, whose around/copy/matrix_power
                     2.x no longer exports)
  Tensor             the union of Tensor_list.rst 01a30221f1fb396ec875c0c192ee9d1ca34f5076
                     (275 names) and, in mindspore_test, the method lists of
                     docs/api/api_python_en/mindspore/mindspore.Tensor.rst at
                     a05ce58802d47fba782ecef8d971e05a078727c1 and at
                     7f810bd6b84efd7c0b9366855dc33cdc95170a7e, and the per-method pages
                     docs/api/api_python/mindspore/Tensor/*.rst at a05ce588
                     (method_t.rst is Tensor.t's page): 390 names
  train              mindspore.train.rst         0968bdd062d394944d36ac33152ebe1658d969fd
  amp                mindspore.amp.rst (docs/api/api_python_en/), mindspore_test a05ce588
"""

SOURCES = {
    "mindspore": "mindspore.rst@00e433dd",
    "ops": "mindspore.ops.function.rst@04578768",
    "ops.operations": "mindspore.ops.primitive.rst@0101b59e",
    "nn": "mindspore.nn.rst@00e433dd",
    "numpy": "mindspore/numpy/__init__.py __all__@mindspore_test:a05ce588",
    "Tensor": ("Tensor_list.rst@01a30221 + mindspore.Tensor.rst / Tensor/*.rst"
               "@mindspore_test:a05ce588,7f810bd6"),
    "train": "mindspore.train.rst@0968bdd0",
    "amp": "mindspore.amp.rst@mindspore_test:a05ce588",
}

MINDSPORE = """
Tensor COOTensor CSRTensor RowTensor SparseTensor Parameter ParameterTuple dtype
int8 byte int16 short int32 intc int64 intp uint8 ubyte uint16 ushort uint32 uintc uint64 uintp
float16 half float32 single float64 double complex64 complex128 bool_ int_ uint float_
dtype_to_nptype issubclass_ dtype_to_pytype pytype_to_dtype get_py_obj_dtype set_seed get_seed
set_context get_context set_auto_parallel_context get_auto_parallel_context
reset_auto_parallel_context ParallelMode set_ps_context get_ps_context reset_ps_context
set_algo_parameters get_algo_parameters reset_algo_parameters Model Callback CheckpointConfig
EarlyStopping History LambdaCallback LearningRateScheduler LossMonitor ModelCheckpoint
ReduceLROnPlateau RunContext TimeMonitor DatasetHelper connect_network_with_dataset
async_ckpt_thread_status build_searched_strategy convert_model export load load_checkpoint
load_distributed_checkpoint load_param_into_net merge_sliced_parameter parse_print
restore_group_info_list save_checkpoint JitConfig ms_function ms_class mutable get_level
get_log_config run_check Profiler SummaryCollector SummaryLandscape SummaryRecord set_dump
ms_memory_recycle ConvertModelUtils ConvertNetUtils
"""

OPS = """
adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d
adaptive_max_pool3d avg_pool1d avg_pool2d avg_pool3d batch_norm bias_add conv2d conv3d
ctc_greedy_decoder crop_and_resize deformable_conv2d dropout2d dropout3d flatten interpolate lrn
max_pool3d kl_div pad padding pdist prelu relu relu6 binary_cross_entropy
binary_cross_entropy_with_logits cross_entropy nll_loss smooth_l1_loss celu dropout fast_gelu
gumbel_softmax hardshrink hardswish log_softmax mish selu softsign soft_shrink softmax tanh
grid_sample uniform_candidate_sampler cdist bmm cholesky cholesky_inverse abs accumulate_n acos
acosh add addn asin asinh atan atan2 atanh bernoulli bessel_i0 bessel_i0e bessel_i1 bessel_i1e
bessel_j0 bessel_j1 bessel_k0 bessel_k0e bessel_k1 bessel_k1e bessel_y0 bessel_y1 bitwise_and
bitwise_or bitwise_xor ceil cos cosh div erf erfc exp expm1 floor floor_div floor_mod inv invert
lerp log log1p logical_and logical_not logical_or logit log_matrix_determinant
matrix_determinant mul neg pow round sin sinh sqrt square sub svd tan trunc truncate_div
truncate_mod xdivy xlogy amax amin argmax argmin cummax cummin logsumexp max mean median min norm
prod std approximate_equal equal ge gt intopk isclose isfinite isnan le less maximum minimum ne
same_type_shape batch_dot dot matmul matrix_solve ger renorm tensor_dot eye fill fills linspace
narrow one_hot ones ones_like zeros_like choice_with_mask gamma laplace multinomial
random_poisson random_categorical random_gamma shuffle standard_laplace standard_normal uniform
adaptive_max_pool2d affine_grid batch_to_space_nd broadcast_to col2im concat count_nonzero diag
dyn_shape expand expand_dims gather gather_d gather_elements gather_nd index_add index_fill
inplace_add inplace_sub inplace_update masked_fill masked_select matrix_band_part matrix_diag
matrix_diag_part matrix_set_diag meshgrid normal nonzero population_count range rank
repeat_elements reshape reverse_sequence scatter_nd select sequence_mask shape size slice
space_to_batch_nd sparse_segment_mean split squeeze stack strided_slice tensor_scatter_add
tensor_scatter_min tensor_scatter_max tensor_scatter_div tensor_scatter_mul tensor_scatter_sub
tensor_scatter_elements tile top_k transpose unique unique_consecutive unique_with_pad
unsorted_segment_max unsorted_segment_min unsorted_segment_prod unsorted_segment_sum unstack
scalar_cast scalar_to_array scalar_to_tensor tuple_to_array dense_to_sparse_coo
dense_to_sparse_csr csr_add csr_softmax csr_to_coo sparse_add clip_by_global_norm clip_by_value
assign assign_add assign_sub scatter_add scatter_div scatter_min scatter_max scatter_mul
scatter_nd_add scatter_nd_div scatter_nd_max scatter_nd_min scatter_nd_mul scatter_nd_sub
scatter_update derivative grad value_and_grad jacfwd jacrev jet jvp vjp vmap print_
bounding_box_decode bounding_box_encode check_valid iou blackman_window core
"""

PRIMITIVES = """
Primitive PrimitiveWithCheck PrimitiveWithInfer constexpr custom_info_register kernel
op_info_register prim_attr_register AvgPool AvgPool3D BatchNorm Conv2D Conv2DTranspose Conv3D
Conv3DTranspose CTCGreedyDecoder DataFormatVecPermute Dilation2D Dropout Dropout2D Dropout3D
DynamicGRUV2 DynamicRNN Flatten FractionalAvgPool FractionalMaxPool
FractionalMaxPoolWithFixedKsize FractionalMaxPool3DWithFixedKsize GridSampler2D GridSampler3D
LayerNorm LRN LSTM MaxPool MaxPool3D MaxPool3DWithArgmax MaxPoolWithArgmax MaxUnpool2D MirrorPad
NthElement Pad EmbeddingLookup Padding PadV3 ResizeBilinear ResizeLinear1D ResizeNearestNeighbor
UpsampleNearest3D UpsampleTrilinear3D BCEWithLogitsLoss BinaryCrossEntropy CTCLoss CTCLossV2
KLDivLoss L2Loss MultilabelMarginLoss MultiMarginLoss NLLLoss RNNTLoss
SigmoidCrossEntropyWithLogits SmoothL1Loss SoftMarginLoss SoftmaxCrossEntropyWithLogits
SparseSoftmaxCrossEntropyWithLogits TripletMarginLoss CeLU Elu FastGeLU GeLU HShrink HSigmoid
HSwish LogSoftmax Mish PReLU ReLU ReLU6 SeLU Sigmoid Softmax Softplus SoftShrink Softsign Tanh
Adam AdamWeightDecay AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool2D AdaptiveMaxPool3D
ApplyAdadelta ApplyAdagrad ApplyAdagradDA ApplyAdagradV2 ApplyAdaMax ApplyAddSign
ApplyCenteredRMSProp ApplyFtrl ApplyGradientDescent ApplyMomentum ApplyPowerSign
ApplyProximalAdagrad ApplyProximalGradientDescent ApplyRMSProp LARSUpdate SparseApplyAdagradV2
SparseApplyProximalAdagrad SGD SparseApplyFtrl SparseApplyFtrlV2 Cdist EditDistance LpNorm
ComputeAccidentalHits LogUniformCandidateSampler UniformCandidateSampler AdjustHue
AdjustSaturation BoundingBoxDecode BoundingBoxEncode CheckValid CombinedNonMaxSuppression
CropAndResize ExtractGlimpse ExtractVolumePatches HSVToRGB IOU L2Normalize NMSWithMask
NonMaxSuppressionV3 NonMaxSuppressionWithOverlaps RGBToHSV ResizeArea ResizeBicubic
ResizeBilinearV2 ROIAlign SampleDistortedBoundingBoxV2 ScaleAndTranslate NoRepeatNGram BesselJ0
BesselJ1 BesselK0 BesselK0e BesselK1 BesselK1e BesselY0 BesselY1 Betainc Bincount Bucketize
Cauchy Cholesky CholeskyInverse CholeskySolve CompareAndBitpack Complex ComplexAbs Cross
CumulativeLogsumexp Gcd Abs AccumulateNV2 ACos Acosh Add Addcdiv Addcmul AddN Asin Asinh Atan
Atan2 Atanh BesselI0e BesselI1e BitwiseAnd BitwiseOr BitwiseXor Ceil Conj Cos Cosh Digamma Div
DivNoNan Einsum Erf Erfc Erfinv Exp Expm1 Floor FloorDiv FloorMod Geqrf Imag Inv Invert Lerp Log
Log1p LogicalAnd LogicalNot LogicalOr Logit Mod Mul MulNoNan Neg NextAfter Pow Polar Real
RealDiv Reciprocal Rint Round Rsqrt Sign Sin Sinh Sqrt Square SquaredDifference SquareSumAll Sub
Tan Trunc TruncateDiv TruncateMod Xdivy Xlogy Zeta Argmax ArgMaxWithValue Argmin ArgMinWithValue
EuclideanNorm ReduceAll ReduceAny ReduceMax ReduceMean ReduceMin ReduceProd ReduceStd ReduceSum
ApproximateEqual Equal EqualCount Greater GreaterEqual InTopK IsFinite IsInf IsNan Less LessEqual
Maximum Minimum NotEqual TopK BatchMatMul BiasAdd Ger MatMul MatrixInverse Orgqr Qr Svd
TridiagonalMatMul Eps Eye Fill LinSpace OneHot Ones OnesLike Zeros ZerosLike Gamma
LogNormalReverse Multinomial NonDeterministicInts ParameterizedTruncatedNormal RandomCategorical
RandomChoiceWithMask RandomPoisson Randperm StandardLaplace StandardNormal TruncatedNormal
UniformInt UniformReal AffineGrid BatchToSpace BatchToSpaceND BroadcastTo Cast CheckNumerics
Coalesce Col2Im Concat ConjugateTranspose Cummax Cummin CumProd CumSum DataFormatDimMap
DepthToSpace Diag DiagPart DType Eig Expand ExpandDims FFTWithSize FillV2 FloatStatus
FillDiagonal Gather GatherD GatherNd HammingWindow Heaviside Histogram HistogramFixedWidth Hypot
Identity IdentityN Im2Col IndexAdd IndexFill InplaceAdd InplaceSub InplaceUpdate
InvertPermutation IsClose Lcm LeftShift ListDiff Lgamma LogMatrixDeterminant LogSpace LowerBound
Lstsq LuSolve LuUnpack MaskedFill MaskedSelect MatrixBandPart MatrixDeterminant
MatrixDiagPartV3 MatrixDiagV3 MatrixExp MatrixLogarithm MatrixPower MatrixSetDiagV3 MatrixSolve
MatrixTriangularSolve Meshgrid Mvlgamma NonZero ParallelConcat PopulationCount RaggedRange Range
Rank Renorm Reshape ResizeNearestNeighborV2 ReverseSequence ReverseV2 RightShift Roll
ScatterAddWithAxis ScatterNd ScatterNdDiv ScatterNdMax ScatterNdMin ScatterNdMul SearchSorted
SegmentMax SegmentMean SegmentMin SegmentProd SegmentSum Select Shape Size Slice Sort
SpaceToBatchND SpaceToDepth SparseSlice SparseGatherV2 Split SplitV Squeeze Stack STFT
StridedSlice TensorScatterAdd TensorScatterDiv TensorScatterMax TensorScatterMin
TensorScatterMul TensorScatterSub TensorScatterUpdate TensorShape Tile Trace Transpose Tril
TrilIndices Triu TriuIndices Unique UniqueConsecutive UniqueWithPad UnravelIndex
UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd UnsortedSegmentSum Unstack UpperBound
ScalarCast ScalarToTensor TupleToArray Assign AssignAdd AssignSub ScatterAdd ScatterDiv
ScatterMax ScatterMin ScatterMul ScatterNdAdd ScatterNdSub ScatterNdUpdate ScatterNonAliasingAdd
ScatterSub ScatterUpdate GetNext AllGather AllReduce AlltoAll Broadcast NeighborExchangeV2
ReduceOp ReduceScatter Assert HistogramSummary ImageSummary ScalarSummary TensorSummary Print
NPUAllocFloatStatus NPUClearFloatStatus NPUGetFloatStatus SparseTensorDenseAdd
SparseTensorDenseMatmul SparseToDense Depend GradOperation HookBackward HyperMap
InsertGradientOf Map MultitypeFuncGraph Partial StopGradient AiCPURegOp CustomRegOp DataType
TBERegOp get_vm_impl_fn Custom BartlettWindow BlackmanWindow
"""

NN = """
Cell GraphCell LossBase Optimizer CellList SequentialCell DistributedGradReducer
DynamicLossScaleUpdateCell FixedLossScaleUpdateCell ForwardValueAndGrad GetNextSingleOp
MicroBatchInterleaved ParameterUpdate PipelineCell TimeDistributed TrainOneStepCell
TrainOneStepWithLossScaleCell WithEvalCell WithGradCell WithLossCell Conv1d Conv1dTranspose
Conv2d Conv2dTranspose Conv3d Conv3dTranspose Unfold RNN RNNCell GRU GRUCell LSTM LSTMCell
Embedding EmbeddingLookup MultiFieldEmbeddingLookup CELU ELU FastGelu GELU get_activation
Hardtanh HShrink HSigmoid HSwish LeakyReLU LogSigmoid LogSoftmax LRN Mish Softsign PReLU ReLU
ReLU6 RReLU SeLU SiLU Sigmoid Softmin Softmax SoftShrink Tanh Tanhshrink Threshold Dense BiDense
Dropout Dropout2d Dropout3d BatchNorm1d BatchNorm2d BatchNorm3d GroupNorm InstanceNorm1d
InstanceNorm2d InstanceNorm3d LayerNorm SyncBatchNorm AdaptiveAvgPool1d AdaptiveAvgPool2d
AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d AvgPool1d AvgPool2d
MaxPool1d MaxPool2d Pad ConstantPad1d ConstantPad2d ConstantPad3d ReflectionPad1d
ReflectionPad2d ZeroPad2d BCELoss BCEWithLogitsLoss CosineEmbeddingLoss CrossEntropyLoss
DiceLoss FocalLoss HuberLoss L1Loss MSELoss MultiClassDiceLoss NLLLoss RMSELoss
SampledSoftmaxLoss SmoothL1Loss SoftMarginLoss SoftmaxCrossEntropyWithLogits Adadelta Adagrad
Adam AdaMax AdamOffload AdamWeightDecay AdaSumByDeltaWeightWrapCell AdaSumByGradWrapCell ASGD
FTRL Lamb LARS LazyAdam Momentum ProximalAdagrad RMSProp Rprop SGD thor Accuracy auc BleuScore
ConfusionMatrix ConfusionMatrixMetric CosineSimilarity Dice F1 Fbeta HausdorffDistance
get_metric_fn Loss MAE MeanSurfaceDistance Metric MSE names OcclusionSensitivity Perplexity
Precision Recall ROC RootMeanSquareDistance rearrange_inputs Top1CategoricalAccuracy
Top5CategoricalAccuracy TopKCategoricalAccuracy CosineDecayLR ExponentialDecayLR InverseDecayLR
NaturalExpDecayLR PolynomialDecayLR WarmUpLR cosine_decay_lr exponential_decay_lr
inverse_decay_lr natural_exp_decay_lr piecewise_constant_lr polynomial_decay_lr warmup_lr
CentralCrop ImageGradients MSSSIM PSNR ResizeBilinear SSIM MatrixDiag MatrixDiagPart
MatrixSetDiag ClipByNorm Flatten L1Regularizer Norm OneHot Range Roll Tril Triu Moments
"""

NUMPY = """
arange array asarray asfarray bartlett blackman diag diag_indices diagflat diagonal empty
empty_like eye full full_like geomspace hamming hanning histogram_bin_edges identity indices
ix_ linspace logspace meshgrid mgrid ogrid ones ones_like pad rand randint randn trace tri tril
tril_indices tril_indices_from triu triu_indices triu_indices_from vander zeros zeros_like
append apply_along_axis apply_over_axes array_split array_str atleast_1d atleast_2d atleast_3d
broadcast_arrays broadcast_to choose column_stack concatenate dsplit dstack expand_dims flip
fliplr flipud hsplit hstack moveaxis piecewise ravel repeat reshape roll rollaxis rot90 select
size split squeeze stack swapaxes take take_along_axis tile transpose unique unravel_index
vsplit vstack where array_equal array_equiv equal greater greater_equal in1d isclose isfinite
isin isinf isnan isneginf isposinf isscalar less less_equal logical_and logical_not logical_or
logical_xor not_equal signbit sometrue absolute add amax amin arccos arccosh arcsin arcsinh
arctan arctan2 arctanh argmax argmin average bincount bitwise_and bitwise_or bitwise_xor cbrt
ceil clip convolve copysign corrcoef correlate cos cosh count_nonzero cov cross cumprod cumsum
deg2rad diff digitize divide divmod dot ediff1d exp exp2 expm1 fix float_power floor
floor_divide fmod gcd gradient heaviside histogram histogram2d histogramdd hypot inner interp
invert kron lcm log log10 log1p log2 logaddexp logaddexp2 matmul maximum mean minimum multi_dot
multiply nancumsum nanmax nanmean nanmin nanstd nansum nanvar negative norm outer polyadd
polyder polyint polymul polysub polyval positive power promote_types ptp rad2deg radians
ravel_multi_index reciprocal remainder result_type rint searchsorted sign sin sinh sqrt square
std subtract sum tan tanh tensordot trapz true_divide trunc unwrap var abs argwhere bitwise_not
bool_ fabs float16 float32 float64 float_ int16 int32 int64 int8 int_ intersect1d max min mod
setdiff1d uint16 uint32 uint64 uint8
"""

TENSOR = """
abs absolute acos add addbmm addcdiv addcmul addmm addmv addr adjoint all amax amin any angle
approximate_equal arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmax_with_value
argmin argmin_with_value argsort asin asinh asnumpy as_strided assign_value astype atan atan2
atanh baddbmm bernoulli bincount bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift
bitwise_xor bmm bool broadcast_to ceil cholesky cholesky_inverse choose chunk clamp clip col2im
conj copy copysign cos cosh cross cummax cummin cumprod cumsum deg2rad det diag diagflat
diagonal digamma div divide dsplit dtype equal erf erfc erfinv exp expand expand_as expand_dims
expm1 fill fills flatten flip fliplr flipud float float_power floor flush_from_cache fold fmod
from_numpy gather gather_elements gather_nd ge ger greater greater_equal gt H half hardshrink
has_init heaviside hsplit hypot i0 igamma igammac index_add index_fill init_data inner
inplace_update int inv inverse invert isclose isfinite is_floating_point isinf isnan isneginf
isposinf isreal is_signed is_complex item itemset itemsize lcm ldexp le lerp less less_equal
lgamma log log10 log1p log2 log_matrix_determinant logaddexp logaddexp2 logdet logical_and
logical_not logical_or logical_xor logit logsumexp long masked_fill masked_select
matrix_determinant max mean median mH min minimum mm msort mT multiply nan_to_num narrow nbytes
ndim ndimension negative nelement new_ones new_zeros numel numpy nonzero norm not_equal permute
positive pow prod ptp rad2deg random_categorical ravel real reciprocal remainder renorm repeat
repeat_interleave reshape reshape_as resize reverse reverse_sequence round roll rot90 rsqrt
scatter_add scatter_div scatter_max scatter_min scatter_mul scatter_sub searchsorted select
set_const_arg sgn shape short sigmoid sign signbit sin sinc size slogdet soft_shrink split sqrt
square squeeze std strides sub subtract sum sum_to_size svd swapaxes T t take tan tanh
tensor_split tile to to_coo to_csr to_tensor top_k trace transpose tril triu true_divide unbind
unfold unique_consecutive unique_with_pad unsorted_segment_max unsorted_segment_min
unsorted_segment_prod unsqueeze var view view_as where xdivy xlogy vsplit acosh add_ addmm_
allclose aminmax argwhere bernoulli_ bfloat16 bitwise_not byte cauchy cholesky_solve clamp_
clone contiguous copy_ count_nonzero cov diagonal_scatter diff div_ dot double eigvals eq exp_
exponential_ fill_ fill_diagonal fill_diagonal_ floor_ floor_divide floor_divide_ fmax fmin
frac gcd geqrf histc imag index_add_ index_copy_ index_fill_ index_put index_put_ index_select
is_contiguous is_pinned kthvalue log_ log_normal logcumsumexp lstsq lt lu_solve masked_fill_
masked_scatter masked_scatter_ matmul matrix_power maximum move_to moveaxis movedim mul mul_
multinomial mvlgamma nanmean nanmedian nanquantile nansum ne neg new_empty new_full nextafter
normal_ orgqr ormqr outer pin_memory put_ qr quantile random_ register_hook remainder_ scatter
scatter_ scatter_add_ select_scatter sigmoid_ sign_ sinh slice_scatter softmax sort storage
storage_offset stride sub_ swapdims tanh_ tolist topk triangular_solve trunc type type_as
uniform uniform_ unique untyped_storage zero_
"""

TRAIN = """
Model BackupAndRestore Callback CheckpointConfig EarlyStopping FlopsUtilizationCollector History
LambdaCallback LearningRateScheduler LossMonitor ModelCheckpoint OnRequestExit ReduceLROnPlateau
RunContext TimeMonitor Accuracy BleuScore ConfusionMatrix ConfusionMatrixMetric CosineSimilarity
Dice F1 Fbeta HausdorffDistance Loss MAE MeanSurfaceDistance Metric MSE OcclusionSensitivity
Perplexity Precision Recall ROC RootMeanSquareDistance Top1CategoricalAccuracy
Top5CategoricalAccuracy TopKCategoricalAccuracy auc get_metric_fn names rearrange_inputs
ConvertModelUtils ConvertNetUtils
"""

AMP = """
LossScaler DynamicLossScaler StaticLossScaler LossScaleManager DynamicLossScaleManager
FixedLossScaleManager auto_mixed_precision build_train_network custom_mixed_precision
get_black_list get_white_list all_finite
"""

NAMES = {"mindspore": MINDSPORE, "ops": OPS, "ops.operations": PRIMITIVES, "nn": NN,
         "numpy": NUMPY, "Tensor": TENSOR, "train": TRAIN, "amp": AMP}
NAMES = {k: list(dict.fromkeys(v.split())) for k, v in NAMES.items()}


def _recorded():
    """The public names of the real MindSpore 2.10.0 wheel (tools/ms_record_names.py run
    with MindSpore's python; mindspore_names.json): fuller than the API docs."""
    import json
    from pathlib import Path
    return json.loads((Path(__file__).with_name("mindspore_names.json")).read_text())


RECORDED = _recorded()
# a namespace takes the union of the documented and the recorded names when the recorded
# list adds names (documented names the wheel no longer has stay, so older scripts count)
for _ns, _names in RECORDED["names"].items():
    _extra = [n for n in _names if n not in set(NAMES[_ns])]
    if _extra:
        NAMES[_ns] = NAMES[_ns] + _extra
        SOURCES[_ns] += " + dir() of the " + RECORDED["source"].split(",")[0]
