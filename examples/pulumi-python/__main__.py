"""random (a secret password), local (a data source and a provider function) and sdkv2test (an
explicit provider with configuration, a resource updated in place or replaced, a data source
and the provider's terraformConfig method)."""

import pulumi
import pulumi_local as local
import pulumi_random as random
import pulumi_sdkv2test as sdkv2test

config = pulumi.Config()
directory = config.require("dir")
# Changing it updates the thing in place; changing thingName replaces it.
description = config.get("description") or "first"
thing_name = config.get("thingName") or "alpha"

password = random.Password("password", length=20, special=False)

input_file = local.get_file_output(filename=f"{directory}/input.txt")
dir_exists = local.direxists_output(directory)

store = sdkv2test.Provider("store", dir=f"{directory}/store")
thing = sdkv2test.Thing(
    "thing",
    name=thing_name,
    description=description,
    secret="hunter2",
    tags={"team": "e2e"},
    settings={"level": 3},
    opts=pulumi.ResourceOptions(provider=store),
)
# By id, which is unknown until the thing exists, so a preview never reads a missing thing.
found = sdkv2test.get_thing_output(name=thing.id, opts=pulumi.InvokeOutputOptions(provider=store))

pulumi.export("passwordResult", password.result)
pulumi.export("inputContent", input_file.content)
pulumi.export("inputSha256", input_file.content_sha256)
pulumi.export("dirExistsResult", dir_exists)
pulumi.export("thingId", thing.id)
pulumi.export("thingDescription", thing.description)
pulumi.export("thingFingerprint", thing.fingerprint)
pulumi.export("thingSecret", thing.secret)
pulumi.export("foundDescription", found.description)
pulumi.export("storeConfig", store.terraform_config().result)
