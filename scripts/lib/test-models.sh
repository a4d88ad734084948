# The test models for the lever and eval shell scripts, from the one list (scripts/lib/test-models.ts). Source it from
# the repository root:  . scripts/lib/test-models.sh
#   test_models_dir        the folder they are in (GEMMA_AGENT_TEST_MODELS, else ~/.cache/gemma-agent/test-models)
#   test_model_keys        every key, in the list's order
#   test_model_path KEY    a model's path (an unknown key: exit 2, naming the keys)
test_models_dir() { npx -s tsx scripts/test-model-path.ts --dir; }
test_model_keys() { npx -s tsx scripts/test-model-path.ts --keys; }
test_model_path() { npx -s tsx scripts/test-model-path.ts "$1"; }
