#include "rxt/pass/context.h"

#include "rxt/pass/pass.h"

namespace rxt {

bool PassContext::IsEnabled(const PassInfo& info) const {
  return info.opt_level <= opt_level && !disabled_passes.count(info.name);
}

const AttrValue* PassContext::FindOption(const std::string& name) const {
  auto it = options.find(name);
  return it == options.end() ? nullptr : &it->second;
}

}  // namespace rxt
