/// RegisterLegalizations: the one place that attaches every family's legalizations.
#include "legalize_util.h"

namespace rxt {

void RegisterLegalizations(OpRegistry& registry) {
  using namespace legalize;
  RegisterElementwiseLegalizations(registry);
  RegisterLinalgLegalizations(registry);
  RegisterManipulateLegalizations(registry);
  RegisterIndexManipulateLegalizations(registry);
  RegisterReduceLegalizations(registry);
  RegisterCreateLegalizations(registry);
  RegisterNNLegalizations(registry);
  RegisterConvLegalizations(registry);
  RegisterPoolLegalizations(registry);
  RegisterNormLegalizations(registry);
  RegisterLossLegalizations(registry);
  RegisterCollectiveLegalizations(registry);
  RegisterBuiltinLegalizations(registry);
}

}  // namespace rxt
